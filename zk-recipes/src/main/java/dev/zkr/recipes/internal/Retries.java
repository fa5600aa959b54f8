package dev.zkr.recipes.internal;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Living with connection loss: waiting for a usable connection, and retrying a call after ConnectionLoss once the
 * connection is back (idempotent calls only; creates find their node instead, see {@link ProtectedNames}).
 */
public final class Retries {

    /** After a ConnectionLoss while the state still reads connected: wait this long for the state to change. */
    private static final long LOSS_SETTLE_MS = 50;

    private Retries() {
    }

    /**
     * Waits until the client is connected (CONNECTED or RECONNECTED) or the deadline passes; true if connected.
     * A closed client (before or during the wait) fails with {@link ZkException.Closed} at once.
     */
    public static boolean awaitConnected(ZkClient client, Deadline deadline) {
        if (client.state().isConnected()) {
            return true;
        }
        while (true) {
            Signal signal = new Signal();
            ConnectionStateListener l = (c, s) -> {
                if (s.isConnected() || s == ConnectionState.LOST) {
                    signal.fire();
                }
            };
            client.addConnectionStateListener(l);
            try {
                if (client.state().isConnected()) {
                    return true;
                }
                checkNotClosed(client);
                if (!signal.await(deadline)) {
                    return client.state().isConnected();
                }
            } finally {
                client.removeConnectionStateListener(l);
            }
        }
    }

    private static void checkNotClosed(ZkClient client) {
        if (client.isClosed()) {
            throw new ZkException.Closed(null, "the client is closed");
        }
    }

    /** After a ConnectionLoss: give the client a moment to notice, then wait for the connection. */
    public static boolean recover(ZkClient client, Deadline deadline) {
        if (client.state().isConnected()) {
            Signal changed = new Signal();
            ConnectionStateListener l = (c, s) -> changed.fire();
            client.addConnectionStateListener(l);
            try {
                Deadline settle = Deadline.after(Duration.ofMillis(
                        Math.min(LOSS_SETTLE_MS, TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()))));
                changed.await(settle);
            } finally {
                client.removeConnectionStateListener(l);
            }
        }
        return awaitConnected(client, deadline);
    }

    /**
     * Runs a client call, retrying after ConnectionLoss once the connection is back. Calls that must not be
     * repeated blindly (creates) do not belong here. Throws ConnectionLoss if the deadline passes first.
     */
    public static <T> T retrying(ZkClient client, Deadline deadline, Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!recover(client, deadline)) {
                    throw e;
                }
            } catch (ZkException.SessionExpired e) {
                if (!awaitConnected(client, deadline)) {
                    throw e;
                }
            }
        }
    }

    public static void retrying(ZkClient client, Deadline deadline, Runnable call) {
        retrying(client, deadline, () -> {
            call.run();
            return null;
        });
    }

    /** A future completed when the client is next connected (at once if it is). */
    public static CompletableFuture<Void> whenConnected(ZkClient client) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ConnectionStateListener[] holder = new ConnectionStateListener[1];
        holder[0] = (c, s) -> {
            if (s.isConnected() || s == ConnectionState.LOST) {
                f.complete(null);
            }
        };
        client.addConnectionStateListener(holder[0]);
        if (client.state().isConnected() || client.isClosed()) {
            f.complete(null); // a closed client: what waits for it finds Closed at once
        }
        f.whenComplete((v, e) -> client.removeConnectionStateListener(holder[0]));
        return f;
    }
}
