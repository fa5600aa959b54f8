package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Helpers shared by the ensemble tests: clients pinned to servers, state recorders, bounded polling. */
final class Ensembles {

    /** How long a condition on server state may take before the test fails (generous: the machine is shared). */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private Ensembles() {
    }

    /** A client (closed with the ensemble) that may use only the listed servers. */
    static ZkClient clientOf(TestEnsemble e, Duration sessionTimeout, int... servers) {
        StringBuilder connect = new StringBuilder();
        for (int i : servers) {
            connect.append(connect.length() == 0 ? "" : ",").append(e.connectString(i));
        }
        return e.newClient(b -> b.connectString(connect.toString()).sessionTimeout(sessionTimeout)
                .connectTimeout(PATIENCE));
    }

    /** A client (closed with the ensemble) of server {@code server} only, authenticated with {@code digest} if not null. */
    static ZkClient digestClient(TestEnsemble e, int server, byte[] digest) {
        return e.newClient(b -> {
            b.connectString(e.connectString(server)).connectTimeout(PATIENCE);
            if (digest != null) {
                b.authInfo("digest", digest);
            }
        });
    }

    /** A client (closed with the ensemble) that may use only the listed servers, session timeout 5 s. */
    static ZkClient clientOf(TestEnsemble e, int... servers) {
        return clientOf(e, Duration.ofSeconds(5), servers);
    }

    /**
     * A client of every server whose session was created by server {@code server} (so it is connected there and
     * can move to any other): clients are opened until one lands on it; the others are closed.
     */
    static ZkClient clientCreatedOn(TestEnsemble e, Duration sessionTimeout, int server) {
        int[] all = new int[e.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return clientCreatedOn(e, sessionTimeout, server, all);
    }

    /** As {@link #clientCreatedOn(TestEnsemble, Duration, int)}, for a client that may use only {@code servers}. */
    static ZkClient clientCreatedOn(TestEnsemble e, Duration sessionTimeout, int server, int... servers) {
        for (int attempt = 0; attempt < 100; attempt++) {
            ZkClient c = clientOf(e, sessionTimeout, servers);
            if (creator(c) == server) {
                return c;
            }
            c.close();
        }
        throw new AssertionError("no client landed on server " + server + " in 100 attempts");
    }

    /** The index of the server that created the client's session (its id is in the session id's high byte). */
    static int creator(ZkClient c) {
        return (int) (c.sessionId() >>> 56) - 1;
    }

    /** Polls {@code condition} until it holds; fails with {@code what} after {@link #PATIENCE}. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + PATIENCE.toSeconds() + " s: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // polling server state
        }
    }

    /** As {@link #await(String, BooleanSupplier)}, with a message built when it fails. */
    static void await(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + PATIENCE.toSeconds() + " s: " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** The index of an in-service leader among {@code candidates}, waiting for one. */
    static int leaderAmong(TestEnsemble e, int... candidates) {
        int[] found = {-1};
        await(() -> "a leader among " + java.util.Arrays.toString(candidates) + " (roles " + e.roles() + ")", () -> {
            for (int i : candidates) {
                if (e.isRunning(i) && e.server(i).isLeading()) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /**
     * The index of the leader once the ensemble is settled: exactly one running server leads in service and every
     * other running server follows it and has applied what it applied.
     */
    static int settledLeader(TestEnsemble e) {
        int[] found = {-1};
        await(() -> "a settled ensemble (roles " + e.roles() + ")", () -> {
            int leader = -1;
            for (int i = 0; i < e.size(); i++) {
                if (e.isRunning(i) && e.server(i).isLeading()) {
                    if (leader >= 0) {
                        return false;
                    }
                    leader = i;
                }
            }
            if (leader < 0) {
                return false;
            }
            long applied = e.server(leader).lastZxid();
            for (int i = 0; i < e.size(); i++) {
                if (i != leader && e.isRunning(i) && (e.server(i).leaderId() != leader + 1
                        || e.server(i).lastZxid() < applied)) {
                    return false;
                }
            }
            found[0] = leader;
            return true;
        });
        return found[0];
    }

    /** Every index of an ensemble of {@code n} except the listed ones. */
    static int[] others(int n, int... except) {
        List<Integer> out = new ArrayList<>();
        outer:
        for (int i = 0; i < n; i++) {
            for (int x : except) {
                if (x == i) {
                    continue outer;
                }
            }
            out.add(i);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** What server {@code i} holds at {@code path} after a sync, read by a fresh client of that server only. */
    static NodeData syncedRead(TestEnsemble e, int i, String path) {
        dev.zkr.client.ZkClientBuilder b = ZkClient.builder().connectString(e.connectString(i))
                .sessionTimeout(Duration.ofSeconds(5)).connectTimeout(PATIENCE);
        if (e.tlsMaterial() != null) {
            b.tls(e.tlsMaterial().clientTls());
        }
        try (ZkClient c = b.build()) {
            c.sync(path);
            try {
                return c.getData(path);
            } catch (ZkException.NoNode none) {
                return null;
            }
        }
    }

    /** The future's value, failing the test if it does not complete within {@link #PATIENCE}. */
    static <T> T get(CompletableFuture<T> f) throws ExecutionException, InterruptedException {
        try {
            return f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer within " + PATIENCE.toSeconds() + " s", e);
        }
    }

    /** The error code a future failed with (fails the test if it succeeded or did not complete). */
    static ZkException.Code failureCode(CompletableFuture<?> f) throws InterruptedException {
        try {
            Object v = get(f);
            throw new AssertionError("expected a failure, got " + v);
        } catch (ExecutionException ex) {
            RuntimeException cause = dev.zkr.client.ClientSupport.unwrap(ex.getCause());
            if (cause instanceof ZkException z) {
                return z.code();
            }
            throw new AssertionError("not a ZkException", cause);
        }
    }

    /**
     * Creates {@code prefix + i} for i in [from, to) with data {@code i}, pipelined, and waits for every answer;
     * a write failed with CONNECTION_LOSS (a leader change, which a loaded machine can cause at any time) is
     * retried; fails on any other error.
     */
    static void createAll(ZkClient c, String prefix, int from, int to) throws Exception {
        List<CompletableFuture<dev.zkr.client.Created>> fs = new ArrayList<>();
        for (int i = from; i < to; i++) {
            fs.add(c.createAsync(prefix + i, new byte[] {(byte) i}, dev.zkr.client.CreateMode.PERSISTENT));
        }
        for (int i = from; i < to; i++) {
            try {
                get(fs.get(i - from));
            } catch (ExecutionException ex) {
                RuntimeException cause = dev.zkr.client.ClientSupport.unwrap(ex.getCause());
                if (!(cause instanceof ZkException z) || z.code() != ZkException.Code.CONNECTION_LOSS) {
                    throw new AssertionError("create " + prefix + i + " failed", cause);
                }
                createRetrying(c, prefix + i, new byte[] {(byte) i}, 1);
            }
        }
    }

    /**
     * Creates {@code path}, retrying a CONNECTION_LOSS (the leader changed under the request); a NODE_EXISTS after a
     * loss means the lost attempt was applied. Returns how many attempts were lost.
     */
    static int createRetrying(ZkClient c, String path, byte[] data) throws InterruptedException {
        return createRetrying(c, path, data, 0);
    }

    private static int createRetrying(ZkClient c, String path, byte[] data, int lostBefore)
            throws InterruptedException {
        int lost = lostBefore;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                get(c.createAsync(path, data, dev.zkr.client.CreateMode.PERSISTENT));
                return lost;
            } catch (ExecutionException ex) {
                RuntimeException cause = dev.zkr.client.ClientSupport.unwrap(ex.getCause());
                if (cause instanceof ZkException.NodeExists && lost > 0) {
                    return lost;
                }
                if (!(cause instanceof ZkException z) || z.code() != ZkException.Code.CONNECTION_LOSS
                        || System.nanoTime() > deadline) {
                    throw new AssertionError("create " + path + " failed", cause);
                }
                lost++;
            }
        }
    }

    /** Sets {@code path}'s data (any version), retrying a CONNECTION_LOSS (setting it twice is harmless). */
    static void setRetrying(ZkClient c, String path, byte[] data) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                get(c.setDataAsync(path, data, -1));
                return;
            } catch (ExecutionException ex) {
                RuntimeException cause = dev.zkr.client.ClientSupport.unwrap(ex.getCause());
                if (!(cause instanceof ZkException z) || z.code() != ZkException.Code.CONNECTION_LOSS
                        || System.nanoTime() > deadline) {
                    throw new AssertionError("setData " + path + " failed", cause);
                }
            }
        }
    }

    /** The children of {@code path} on server {@code i} after a sync (a fresh client of that server only). */
    static java.util.Set<String> childrenOn(TestEnsemble e, int i, String path) {
        dev.zkr.client.ZkClientBuilder b = ZkClient.builder().connectString(e.connectString(i))
                .sessionTimeout(Duration.ofSeconds(5)).connectTimeout(PATIENCE);
        if (e.tlsMaterial() != null) {
            b.tls(e.tlsMaterial().clientTls());
        }
        try (ZkClient c = b.build()) {
            c.sync(path);
            return new java.util.TreeSet<>(c.getChildren(path));
        }
    }

    /** The names {@code prefix + i} for i in [from, to). */
    static java.util.Set<String> names(String prefix, int from, int to) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (int i = from; i < to; i++) {
            out.add(prefix + i);
        }
        return out;
    }

    /**
     * A clock made of a session: opens a session with {@code timeoutMs} on server {@code server} through a raw
     * socket, creates the ephemeral {@code path}, and drops the socket without closing the session. The returned
     * future completes when {@code watcher} (a live client) sees the ephemeral deleted: by then at least
     * {@code timeoutMs} passed on the expiring leader's clock since the canary's last sign of life.
     */
    static CompletableFuture<dev.zkr.client.WatchedEvent> canary(TestEnsemble e, int server, String path,
                                                                 int timeoutMs, ZkClient watcher) {
        try (WireClient raw = new WireClient(e.port(server))) {
            dev.zkr.wire.Message m = raw.handshake(0, null, timeoutMs, 0);
            if (!(m instanceof dev.zkr.wire.Message.ConnectResponse)) {
                throw new AssertionError("canary session refused: " + m);
            }
            raw.send(new dev.zkr.wire.Message.CreateRequest(raw.nextXid(), path, new byte[0],
                    dev.zkr.client.CreateMode.EPHEMERAL));
            dev.zkr.wire.Message.Reply r = raw.reply();
            if (r.code() != 0) {
                throw new AssertionError("canary ephemeral not created: " + r);
            }
        }
        CompletableFuture<dev.zkr.client.WatchedEvent> deleted = new CompletableFuture<>();
        if (watcher.exists(path, ev -> {
            if (ev.type() == dev.zkr.client.WatchedEvent.Type.NODE_DELETED) {
                deleted.complete(ev);
            }
        }) == null) {
            deleted.complete(null); // expired already
        }
        return deleted;
    }

    /** Records every connection state a client reports, in order. */
    static final class States {
        final List<ConnectionState> seen = new CopyOnWriteArrayList<>();

        static States of(ZkClient c) {
            States s = new States();
            c.addConnectionStateListener((client, state) -> s.seen.add(state));
            return s;
        }

        void awaitState(ConnectionState state) {
            await(() -> state + " reported (states so far " + seen + ")", () -> seen.contains(state));
        }

        boolean contains(ConnectionState state) {
            return seen.contains(state);
        }

        @Override
        public String toString() {
            return seen.toString();
        }
    }
}
