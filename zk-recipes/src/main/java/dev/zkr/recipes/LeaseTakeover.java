package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The leased lock's waiter right behind the holder: takes the lock over once the holder's lease has run out on the
 * server's clock. Given the holder's node as read with its watch ({@code mtime} m of its last renewal, version v):
 * waits the lease on the local monotonic clock (the server's time was at least m when the read was answered), then
 * learns the server's time T from a write of its own node ({@code setData}: the response's {@code mtime}); if T is
 * strictly past m plus the lease it deletes the holder's node <em>at version v</em>, which fails if the holder
 * renewed meanwhile (the data watch then brings a new read, and a new wait). Otherwise it waits the rest and asks
 * again. The delete fires the waiter's own watch, so the acquire goes on as after a release: no herd (only this
 * waiter judges the holder, and only its successor hears of its probe writes).
 */
final class LeaseTakeover implements AsyncAcquire.HolderWatch {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final long leaseMillis;
    private final Executor executor;

    LeaseTakeover(ZkClient client, Duration lease, Executor executor) {
        this.client = client;
        this.leaseMillis = lease.toMillis();
        this.executor = executor;
    }

    @Override
    public void watching(OwnedNode ours, String holderPath, Stat holderStat, BooleanSupplier current) {
        later(leaseMillis, () -> probe(ours, holderPath, holderStat, current));
    }

    private void probe(OwnedNode ours, String holderPath, Stat holderStat, BooleanSupplier current) {
        if (!current.getAsBoolean()) {
            return; // the holder changed, or the acquire ended or started over: a new read judges again
        }
        CompletableFuture<Stat> now;
        try {
            now = client.setDataAsync(ours.path(), NO_DATA, -1);
        } catch (RuntimeException e) {
            return; // the client is closing: the acquire fails on its own
        }
        now.whenComplete((stat, err) -> {
            if (err != null) {
                retry(err, ours, holderPath, holderStat, current);
                return;
            }
            if (!current.getAsBoolean()) {
                return; // a change: the acquire reads again, and judges again
            }
            long late = holderStat.mtime() + leaseMillis - stat.mtime(); // server time still to pass, ≥ 0: not yet
            if (late >= 0) {
                later(late + 1, () -> probe(ours, holderPath, holderStat, current));
                return;
            }
            client.deleteAsync(holderPath, holderStat.version()).whenComplete((v, failed) -> {
                // success fires our watch (NODE_DELETED): the acquire holds; BadVersion (renewed) fires it with a
                // data change: the acquire reads again; NoNode: released meanwhile, the watch fired already
                if (failed != null && !(ClientSupport.unwrap(failed) instanceof ZkException.BadVersion)
                        && !(ClientSupport.unwrap(failed) instanceof ZkException.NoNode)) {
                    retry(failed, ours, holderPath, holderStat, current);
                }
            });
        });
    }

    /**
     * A probe or the delete failed: once connected, probe again if the watch is still current. (A lost connection
     * starts a new chain of the acquire, which reads and judges afresh, so the old one then stops; a lost response
     * without a disconnect would otherwise leave the waiter waiting for a holder that never renews.)
     */
    private void retry(Throwable err, OwnedNode ours, String holderPath, Stat holderStat, BooleanSupplier current) {
        RuntimeException cause = ClientSupport.unwrap(err);
        if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout) {
            Retries.whenConnected(client).thenRun(() -> probe(ours, holderPath, holderStat, current));
        } // else (expiry, closed, no node of ours): the acquire's chain deals with it
    }

    private void later(long millis, Runnable r) {
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS, executor).execute(r);
    }
}
