package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Revocable locks: a batch job holds a lock for a long time; an urgent job asks it to give the lock up. The batch
 * job's listener aborts and releases; the urgent job gets the lock with a larger fencing token. A second holder
 * that ignores requests keeps the lock.
 */
public final class RevocationSample {

    public static void main(String[] args) throws Exception {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient batchClient = ensemble.newClient();
            DistributedLock batchLock = Recipes.using(batchClient).lock("/locks/report");
            LockLease batch = batchLock.acquire(l -> {
                Samples.say("asked to give the lock up: aborting the batch and releasing");
                l.close();
            });
            Samples.say("batch job holds the lock (token %d)", batch.fencingToken());

            DistributedLock urgentLock = Recipes.using(ensemble.newClient()).lock("/locks/report");
            CompletableFuture<LockLease> urgent = CompletableFuture.supplyAsync(urgentLock::acquire);
            Samples.say("urgent job asks the holder: asked=%s", urgentLock.requestRevocation());
            LockLease got = urgent.get(10, TimeUnit.SECONDS);
            Samples.say("urgent job holds the lock (token %d > %d)", got.fencingToken(), batch.fencingToken());
            if (got.fencingToken() <= batch.fencingToken()) {
                throw new IllegalStateException("fencing token went backwards");
            }

            // a holder may also ignore the request: revocation is cooperative
            DistributedLock stubbornLock = Recipes.using(ensemble.newClient()).lock("/locks/report");
            got.close();
            LockLease stubborn = stubbornLock.acquire(l -> Samples.say("asked, but keeps the lock"));
            urgentLock.requestRevocation();
            boolean free = urgentLock.tryAcquire(java.time.Duration.ofMillis(300)).isPresent();
            Samples.say("the urgent job could take it anyway: %s; stubborn holder valid: %s", free, stubborn.isValid());
            if (free) {
                throw new IllegalStateException("a holder that ignores the request keeps the lock");
            }
            stubborn.close();
            Samples.say("a request on a free lock asks nobody: %s", urgentLock.requestRevocation());
        }
    }
}
