package dev.zkr.samples;

import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A double barrier with three parties that arrive at different times: nobody starts computing before all three
 * entered, and nobody goes on after {@code leave} before all three finished.
 */
public final class DoubleBarrierSample {

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                String id = "party-" + i;
                int arriveAfterMs = 300 * (i - 1);
                int workMs = 300 * (4 - i);
                DoubleBarrier barrier = Recipes.using(ensemble.newClient()).doubleBarrier("/barrier")
                        .parties(3).memberId(id).build();
                Thread t = new Thread(() -> {
                    Samples.pause(Duration.ofMillis(arriveAfterMs)); // arrive late, for show
                    Samples.say("arrives, enters");
                    barrier.enter();
                    Samples.say("all three are in: computing for %d ms", workMs);
                    Samples.pause(Duration.ofMillis(workMs)); // the "work"
                    Samples.say("done, leaves");
                    barrier.leave();
                    Samples.say("everyone has left: going on");
                    barrier.close();
                }, id);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
        }
    }
}
