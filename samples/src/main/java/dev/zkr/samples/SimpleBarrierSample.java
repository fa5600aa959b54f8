package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.SimpleBarrier;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A simple barrier: a deployer holds three workers at a gate until the new version is out, then lets them all go.
 * A second round shows an ephemeral gate falling when its owner crashes (its session ends).
 */
public final class SimpleBarrierSample {

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            SimpleBarrier deployer = Recipes.using(ensemble.newClient()).barrier("/gates/deploy");
            deployer.setBarrier();
            Samples.say("gate set: workers wait for the deployment");
            List<Thread> workers = startWorkers(ensemble);
            Samples.pause(Duration.ofMillis(200));
            Samples.say("deployed: removing the gate");
            deployer.removeBarrier();
            for (Thread t : workers) {
                t.join();
            }

            ZkClient doomed = ensemble.newClient();
            Recipes.using(doomed).barrier("/gates/deploy").setEphemeralBarrier();
            Samples.say("an ephemeral gate is set; its owner crashes");
            workers = startWorkers(ensemble);
            ensemble.expireSession(doomed.sessionId());
            for (Thread t : workers) {
                t.join();
            }
            if (PASSED.get() != 6) {
                throw new IllegalStateException("only " + PASSED.get() + " of 6 passed the gates");
            }
        }
    }

    private static final java.util.concurrent.atomic.AtomicInteger PASSED = new java.util.concurrent.atomic.AtomicInteger();

    private static List<Thread> startWorkers(TestEnsemble ensemble) {
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            SimpleBarrier gate = Recipes.using(ensemble.newClient()).barrier("/gates/deploy");
            Thread t = new Thread(() -> {
                if (gate.waitOnBarrier(Duration.ofSeconds(30))) {
                    PASSED.incrementAndGet();
                    Samples.say("through the gate");
                }
            }, "worker-" + (i + 1));
            workers.add(t);
            t.start();
        }
        return workers;
    }
}
