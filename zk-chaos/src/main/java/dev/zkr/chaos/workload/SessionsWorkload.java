package dev.zkr.chaos.workload;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.chaos.Clients;
import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Sessions and ephemerals. Each worker keeps two sessions of its own open (clients built with
 * {@code renewSessionOnExpiry(false)}, so an expired session stays expired), and with them creates ephemerals under
 * {@code /chaos/sessions/<session-hex>/}, reads a hot node (which the workers' own clients keep writing) and its own
 * directory's {@code Stat}, and now and then closes a session on purpose and opens another. Connection states
 * (SUSPENDED, RECONNECTED, LOST) are recorded as {@code state} operations. After healing every session still open
 * learns its fate ({@link #probe}), then every server is read (after a sync) and {@link SessionCheck} checks the
 * ephemerals by fate and the zxids each session saw.
 */
public final class SessionsWorkload implements Workload {

    static final String ROOT = "/chaos/sessions";
    static final String HOT = "/chaos/sessions-hot";
    private static final int SESSIONS_PER_WORKER = 2;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);
    /** How long after healing a session may take to learn its fate, and a dead one's ephemerals to go. */
    static final long SETTLE_MS = 3 * Clients.SESSION_TIMEOUT.toMillis() + 10_000;

    /** One session of a worker, its client and what its listener and worker recorded. */
    private static final class Tracked {
        final ZkClient client;
        final String hex;
        final String dir;
        volatile boolean closing;
        volatile boolean toldLost;
        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        final Set<String> failed = ConcurrentHashMap.newKeySet();
        final Set<String> attempted = ConcurrentHashMap.newKeySet();
        int created;

        Tracked(ZkClient client) {
            this.client = client;
            this.hex = Long.toHexString(client.sessionId());
            this.dir = ROOT + "/" + hex;
        }
    }

    private final List<Tracked> sessions = new CopyOnWriteArrayList<>();
    private volatile List<String> facts = List.of();

    @Override
    public String name() {
        return "sessions";
    }

    @Override
    public Set<String> writes() {
        return Set.of("write-hot", "create-eph");
    }

    @Override
    public void setup(Worker admin) {
        admin.client().create(ROOT, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        admin.client().create(HOT, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
    }

    @Override
    public void work(Worker w) {
        List<Tracked> mine = new ArrayList<>();
        int writes = 0;
        while (!w.stopped()) {
            mine.removeIf(t -> t.toldLost || t.closing);
            if (mine.size() < SESSIONS_PER_WORKER) {
                Worker.Result<Tracked> r = Blocking.call(w, "open", ROOT, null, () -> open(w), t -> t.hex);
                if (r.ok()) {
                    mine.add(r.value());
                }
                continue;
            }
            Tracked s = mine.get(w.random().nextInt(mine.size()));
            int dice = w.random().nextInt(1000);
            if (dice < 300) {
                byte[] data = (w.index() + "-" + writes++).getBytes(StandardCharsets.UTF_8);
                w.call("write-hot", HOT, null, () -> w.client().setDataAsync(HOT, data, -1),
                        st -> Long.toHexString(st.mzxid()));
            } else if (dice < 600) {
                w.call("read-hot", HOT, s.hex, () -> s.client.getDataAsync(HOT, null),
                        d -> Long.toHexString(d.stat().mzxid()));
            } else if (dice < 850) {
                String name = "e-" + s.created++;
                String path = s.dir + "/" + name;
                s.attempted.add(name);
                Worker.Result<?> r = w.call("create-eph", path, s.hex,
                        () -> s.client.createAsync(path, new byte[0], CreateMode.EPHEMERAL, Parents.PERSISTENT),
                        c -> Long.toHexString(c.stat().czxid()));
                if (r.ok()) {
                    s.acknowledged.add(name);
                } else if (r.op().failed()) {
                    s.failed.add(name);
                }
            } else if (dice < 995) {
                w.call("read-dir", s.dir, s.hex, () -> s.client.existsAsync(s.dir, null),
                        st -> st == null ? null : Long.toHexString(st.pzxid()));
            } else {
                s.closing = true;
                Blocking.call(w, "close", s.dir, s.hex, () -> {
                    s.client.close();
                    return s.hex;
                }, v -> "closed");
            }
        }
    }

    /** A new session of this worker's own, with its state listener. */
    private Tracked open(Worker w) {
        ZkClient client = w.system().equals("zookeeper")
                ? ApacheZkClient.builder().connectString(w.connectString()).sessionTimeout(Clients.SESSION_TIMEOUT)
                        .connectTimeout(CONNECT_TIMEOUT).renewSessionOnExpiry(false).build()
                : ZkClient.builder().connectString(w.connectString()).sessionTimeout(Clients.SESSION_TIMEOUT)
                        .connectTimeout(CONNECT_TIMEOUT).renewSessionOnExpiry(false).build();
        Tracked t = new Tracked(client);
        sessions.add(t);
        client.addConnectionStateListener((c, state) -> onState(w, t, state));
        if (client.state() == ConnectionState.LOST) {
            onState(w, t, ConnectionState.LOST); // lost before the listener was there
        }
        return t;
    }

    private static void onState(Worker w, Tracked t, ConnectionState state) {
        if (state == ConnectionState.LOST && !t.closing) {
            if (t.toldLost) {
                return;
            }
            t.toldLost = true;
        }
        long now = w.history().now();
        w.history().add(new Op(w.index(), "state", t.dir, t.hex, now, now, Op.Status.OK,
                state.name() + (state == ConnectionState.LOST && t.closing ? " (closed)" : ""), null));
    }

    /**
     * The rule for a session still open after healing: its client gets {@link #SETTLE_MS} to do a {@code sync} and
     * an {@code exists} on it (retried while the connection is down). Served, and the client not told LOST: the
     * session is alive on the servers ({@link SessionCheck.Fate#ALIVE}); told LOST (expired): EXPIRED; neither by the
     * deadline: UNDECIDED.
     */
    private static SessionCheck.Fate probe(Tracked t, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            if (t.toldLost || t.client.state() == ConnectionState.LOST) {
                return SessionCheck.Fate.EXPIRED;
            }
            try {
                t.client.syncAsync(t.dir).thenCompose(v -> t.client.existsAsync(t.dir, null))
                        .get(Worker.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                if (!t.toldLost && t.client.state() != ConnectionState.LOST) {
                    return SessionCheck.Fate.ALIVE;
                }
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof ZkException.SessionExpired) {
                    t.toldLost = true;
                    return SessionCheck.Fate.EXPIRED;
                }
                Thread.sleep(200); // connection still down: try again until the deadline
            } catch (java.util.concurrent.TimeoutException e) {
                // try again until the deadline
            }
        }
        return SessionCheck.Fate.UNDECIDED;
    }

    private static SessionCheck.Fate fate(Tracked t, long deadline) throws InterruptedException {
        if (t.closing) {
            return SessionCheck.Fate.CLOSED;
        }
        if (t.toldLost) {
            return SessionCheck.Fate.EXPIRED;
        }
        return probe(t, deadline);
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        long deadline = System.nanoTime() + SETTLE_MS * 1_000_000;
        int lostDuringRun = (int) sessions.stream().filter(t -> t.toldLost && !t.closing).count();
        Map<Tracked, SessionCheck.Fate> fates = new LinkedHashMap<>();
        for (Tracked t : sessions) {
            fates.put(t, fate(t, deadline));
        }
        // a dead session's ephemerals may take until its expiry on the servers to go: read until they are gone
        Map<Integer, Map<String, Set<String>>> held = read(servers, fates, deadline);
        // an alive session must still be alive after the reads (else it expired meanwhile: read again)
        boolean changed = false;
        for (Map.Entry<Tracked, SessionCheck.Fate> e : fates.entrySet()) {
            if (e.getValue() == SessionCheck.Fate.ALIVE) {
                SessionCheck.Fate again = probe(e.getKey(), System.nanoTime() + SETTLE_MS * 1_000_000);
                if (again != SessionCheck.Fate.ALIVE) {
                    e.setValue(again);
                    changed = true;
                }
            }
        }
        if (changed) {
            held = read(servers, fates, System.nanoTime() + SETTLE_MS * 1_000_000);
        }
        List<SessionCheck.Session> checked = new ArrayList<>();
        Map<SessionCheck.Fate, Integer> counts = new HashMap<>();
        long acknowledged = 0;
        for (Map.Entry<Tracked, SessionCheck.Fate> e : fates.entrySet()) {
            Tracked t = e.getKey();
            counts.merge(e.getValue(), 1, Integer::sum);
            acknowledged += t.acknowledged.size();
            checked.add(new SessionCheck.Session(t.hex, e.getValue(), Set.copyOf(t.acknowledged),
                    Set.copyOf(t.failed), Set.copyOf(t.attempted)));
        }
        List<String> anomalies = new ArrayList<>(SessionCheck.ephemerals(checked, held));
        List<Op> ops = history.ops();
        List<String> zxids = SessionCheck.zxids(ops);
        anomalies.addAll(zxids);
        long zxidReads = ops.stream().filter(o -> o.ok() && o.result() != null
                && Set.of("read-hot", "read-dir", "create-eph").contains(o.f())).count();
        long suspended = ops.stream().filter(o -> o.f().equals("state") && o.result().equals("SUSPENDED")).count();
        long reconnected = ops.stream().filter(o -> o.f().equals("state") && o.result().equals("RECONNECTED"))
                .count();
        facts = List.of(
                String.format("sessions: %d opened; after healing %d alive, %d expired (%d told LOST during the run), "
                                + "%d closed on purpose, %d undecided", sessions.size(),
                        counts.getOrDefault(SessionCheck.Fate.ALIVE, 0),
                        counts.getOrDefault(SessionCheck.Fate.EXPIRED, 0), lostDuringRun,
                        counts.getOrDefault(SessionCheck.Fate.CLOSED, 0),
                        counts.getOrDefault(SessionCheck.Fate.UNDECIDED, 0)),
                String.format("sessions: %d ephemerals acknowledged; %d SUSPENDED, %d RECONNECTED", acknowledged,
                        suspended, reconnected),
                String.format("sessions: %d zxids checked (hot node mzxid, own directory pzxid, create czxid), "
                        + "%d went backwards", zxidReads, zxids.size()));
        return anomalies;
    }

    /**
     * Every server's view of every session's directory, after a sync. Until {@code deadline}, read again while a
     * closed or expired session still has ephemerals somewhere (its expiry may still be under way).
     */
    private static Map<Integer, Map<String, Set<String>>> read(FinalReads servers,
                                                               Map<Tracked, SessionCheck.Fate> fates, long deadline)
            throws Exception {
        while (true) {
            Map<Integer, Map<String, Set<String>>> held = new LinkedHashMap<>();
            boolean deadLeft = false;
            for (int i = 0; i < servers.servers(); i++) {
                ZkClient c = servers.on(i);
                Map<String, Set<String>> bySession = new HashMap<>();
                for (Map.Entry<Tracked, SessionCheck.Fate> e : fates.entrySet()) {
                    String dir = e.getKey().dir;
                    Set<String> names = Retry.until("reading " + dir + " on server " + servers.id(i), () -> {
                        c.sync(dir);
                        try {
                            return new TreeSet<>(c.getChildren(dir));
                        } catch (ZkException.NoNode none) {
                            return Collections.<String>emptySet();
                        }
                    });
                    bySession.put(e.getKey().hex, names);
                    SessionCheck.Fate f = e.getValue();
                    if ((f == SessionCheck.Fate.EXPIRED || f == SessionCheck.Fate.CLOSED) && !names.isEmpty()) {
                        deadLeft = true;
                    }
                }
                held.put(servers.id(i), bySession);
            }
            if (!deadLeft || System.nanoTime() > deadline) {
                return held;
            }
            Thread.sleep(500); // awaiting expiries on the servers (a condition, with a deadline)
        }
    }

    @Override
    public List<String> facts() {
        return facts;
    }

    @Override
    public void close() {
        for (Tracked t : sessions) {
            t.closing = true;
            try {
                t.client.close();
            } catch (RuntimeException ignored) {
                // closing a client of a dead ensemble
            }
        }
    }
}
