package dev.zkr.apache.conformance;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * One backend's half of a differential try: the main client, an optional second session ("other") that owns
 * ephemerals, a client authenticated as the super user ("admin") for the harness's own reads (current versions,
 * container state, the final tree) that ACLs must not hide, the watchers of the main client with the events they
 * received, the zxids seen so far (compared by order only) and the normalised outcome of every step.
 */
final class Side implements AutoCloseable {

    static final int WATCHERS = 3;
    private static final Duration SETTLE = Duration.ofSeconds(10);

    final String name;
    final String root;
    private final Backends.Backend backend;
    final ZkClient main;
    /** The super user (shared by the tries, not closed here): passes every ACL check; no step uses it itself. */
    final ZkClient admin;
    private ZkClient other;

    private final List<List<WatchedEvent>> events = new ArrayList<>();
    private final List<Watcher> watchers = new ArrayList<>();
    private final int[] eventsSeen = new int[WATCHERS];

    /** Sequential nodes created in this try (relative paths), in creation order. */
    final List<String> sequentials = new ArrayList<>();
    /** Ephemerals of the second session created in this try (absolute paths). */
    final Set<String> otherEphemerals = new LinkedHashSet<>();
    /** Container nodes created in this try (absolute paths) that may still exist. */
    final Set<String> containers = new LinkedHashSet<>();

    final List<Long> zxids = new ArrayList<>();
    final List<String> zxidLabels = new ArrayList<>();
    final List<String> history = new ArrayList<>();

    Side(String name, String root, Backends.Backend backend) {
        this.name = name;
        this.root = root;
        this.backend = backend;
        this.main = backend.newClient();
        this.admin = backend.admin();
        for (int i = 0; i < WATCHERS; i++) {
            List<WatchedEvent> list = new CopyOnWriteArrayList<>();
            events.add(list);
            int index = i;
            watchers.add(new Watcher() {
                @Override
                public void process(WatchedEvent event) {
                    list.add(event);
                }

                @Override
                public String toString() {
                    return "w" + index;
                }
            });
        }
    }

    // ---- paths ------------------------------------------------------------------------------------------------

    String abs(String rel) {
        if (rel.startsWith("/")) {
            return rel; // a node outside the root, e.g. a sequential sibling of the root
        }
        return rel.isEmpty() ? root : root + "/" + rel;
    }

    /** The absolute path of a node reference: a fixed path or a sequential node created earlier in this try. */
    String abs(Args.PathRef ref) {
        if (ref.seq() < 0) {
            return abs(ref.rel());
        }
        if (sequentials.isEmpty()) {
            return abs("no-seq");
        }
        return abs(sequentials.get(ref.seq() % sequentials.size()));
    }

    /** A path relative to the root ("." for the root itself); paths outside the root stay absolute. */
    String rel(String abs) {
        if (abs == null) {
            return "null";
        }
        if (abs.equals(root)) {
            return ".";
        }
        return abs.startsWith(root + "/") ? abs.substring(root.length() + 1) : abs;
    }

    // ---- clients and watchers ---------------------------------------------------------------------------------

    ZkClient client(boolean byOther) {
        if (!byOther) {
            return main;
        }
        if (other == null) {
            other = backend.newClient();
        }
        return other;
    }

    /** Closes the second session; false if none was open. */
    boolean closeOther() {
        if (other == null) {
            return false;
        }
        other.close();
        other = null;
        otherEphemerals.clear();
        return true;
    }

    /**
     * Restarts the server and waits (bounded) until the main client and the second one, if any, serve again with
     * the same sessions; returns whether both kept their sessions.
     */
    boolean restartServer() {
        long mainSession = main.sessionId();
        long otherSession = other == null ? 0 : other.sessionId();
        backend.restart();
        awaitServing(main);
        awaitServing(admin);
        if (other != null) {
            awaitServing(other);
        }
        return main.sessionId() == mainSession && (other == null || other.sessionId() == otherSession);
    }

    private void awaitServing(ZkClient client) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            try {
                client.sync("/");
                return;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(name + ": " + client + " not serving " + SETTLE + " after a restart", e);
                }
                pollPause();
            }
        }
    }

    /**
     * Has the server expire the second session, waits (bounded) until its ephemerals are gone, then closes its
     * client; false if none was open.
     */
    boolean expireOther() {
        if (other == null) {
            return false;
        }
        long session = other.sessionId();
        backend.expire(session);
        long deadline = System.nanoTime() + SETTLE.toNanos();
        for (String p : otherEphemerals) {
            // the path may since hold another node (the ephemeral deleted, a persistent one created there)
            while (isEphemeralOf(admin.exists(p), session)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(name + ": ephemeral " + p + " still there after its session expired");
                }
                pollPause();
            }
        }
        return closeOther();
    }

    private static boolean isEphemeralOf(Stat s, long session) {
        return s != null && s.ephemeralOwner() == session;
    }

    Watcher watcher(int index) {
        return index < 0 ? null : watchers.get(index);
    }

    /**
     * The events each watcher received since the last call, normalised ({@code TYPE path}); their zxids are
     * recorded. With {@code unordered}, a watcher's new events are sorted (their order is unspecified).
     */
    List<List<String>> newEvents(int step, boolean unordered) {
        List<List<String>> out = new ArrayList<>();
        for (int w = 0; w < WATCHERS; w++) {
            List<WatchedEvent> all = events.get(w);
            List<WatchedEvent> fresh = new ArrayList<>(all.subList(eventsSeen[w], all.size()));
            eventsSeen[w] = all.size();
            if (unordered) {
                fresh.sort((x, y) -> (x.type() + x.path()).compareTo(y.type() + y.path()));
            }
            List<String> norm = new ArrayList<>();
            for (WatchedEvent e : fresh) {
                String label = "w" + w + "." + e.type() + "(" + rel(e.path()) + ")@" + step;
                norm.add(e.type() + " " + rel(e.path()) + " zxid:" + zxid(label, e.zxid()));
            }
            out.add(norm);
        }
        return out;
    }

    /** The watched paths of the main client (relative, sorted). */
    Set<String> watchedPaths() {
        Set<String> out = new TreeSet<>();
        for (String p : main.watchedPaths()) {
            out.add(rel(p));
        }
        return out;
    }

    // ---- normalisation ----------------------------------------------------------------------------------------

    /** Records a zxid under a label (compared by order across backends); non-positive values are kept literally. */
    String zxid(String label, long zxid) {
        if (zxid <= 0) {
            return Long.toString(zxid);
        }
        zxids.add(zxid);
        zxidLabels.add(label);
        return "z";
    }

    /** The Stat fields that must agree; zxids recorded by order, the owner as "main"/"other". */
    String stat(Stat s, String label) {
        if (s == null) {
            return "null";
        }
        zxid(label + ".czxid", s.czxid());
        zxid(label + ".mzxid", s.mzxid());
        zxid(label + ".pzxid", s.pzxid());
        return "{v" + s.version() + " cv" + s.cversion() + " av" + s.aversion() + " nc" + s.numChildren()
                + " len" + s.dataLength() + " " + owner(s.ephemeralOwner()) + "}";
    }

    private String owner(long owner) {
        if (owner == 0) {
            return "persistent";
        }
        if (owner == main.sessionId()) {
            return "eph(main)";
        }
        if (other != null && owner == other.sessionId()) {
            return "eph(other)";
        }
        return "eph(0x" + Long.toHexString(owner) + ")";
    }

    /**
     * An ACL as a list, in order, except that adjacent digest entries with the same permissions are sorted: that is
     * how an {@code auth} entry expands (one entry per digest id of the session), and ZooKeeper 3.9 expands it in the
     * iteration order of the connection's id set (a ConcurrentHashMap: hash order), zkr in the order the session
     * authenticated. The fixed ACLs of {@link Args.AclChoice} never list two digest entries with the same
     * permissions next to each other, so the order of every list given explicitly is still compared.
     */
    static String acl(List<Acl> acl) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < acl.size()) {
            Acl first = acl.get(i);
            int j = i + 1;
            if (first.id().scheme().equals("digest")) {
                while (j < acl.size() && acl.get(j).id().scheme().equals("digest")
                        && acl.get(j).perms() == first.perms()) {
                    j++;
                }
            }
            List<String> run = new ArrayList<>();
            for (Acl a : acl.subList(i, j)) {
                run.add(a.toString());
            }
            Collections.sort(run);
            out.addAll(run);
            i = j;
        }
        return out.toString();
    }

    static String data(byte[] data) {
        if (data.length > 64) {
            return "<" + data.length + " bytes>";
        }
        return "'" + new String(data, StandardCharsets.UTF_8) + "'";
    }

    /** Runs an operation, turning a ZkException into "error CODE" (and multi results, if any). */
    static String outcome(Supplier<String> op) {
        try {
            return op.get();
        } catch (ZkException e) {
            String s = "error " + e.code();
            if (e.multiResults() != null) {
                s += " " + Step.results(e.multiResults(), null, "failed", null);
            }
            return s;
        } catch (RuntimeException e) {
            return "unexpected " + e;
        }
    }

    /** Remembers what a successful create made: sequential names and containers. */
    void created(String actualPath, CreateMode mode) {
        if (mode.isSequential()) {
            sequentials.add(rel(actualPath));
        }
        if (mode.isContainer()) {
            containers.add(actualPath);
        }
    }

    // ---- settling ---------------------------------------------------------------------------------------------

    /**
     * Waits (bounded) until every container that had children and is empty has been removed by the server's
     * timer-based cleanup, then syncs so that every event is delivered. Returns the containers removed meanwhile.
     */
    List<String> settle() {
        List<String> removed = new ArrayList<>();
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            boolean pending = false;
            boolean gone = false;
            for (String c : List.copyOf(containers)) {
                Stat s = admin.exists(c);
                if (s == null) {
                    containers.remove(c);
                    removed.add(rel(c));
                    gone = true;
                } else if (s.numChildren() == 0 && s.cversion() > 0) {
                    pending = true;
                }
            }
            if (!pending && !gone) {
                break; // a removal may empty its parent container: look once more after any removal
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + ": empty containers " + containers + " not removed within " + SETTLE);
            }
            pollPause();
        }
        main.sync("/");
        Collections.sort(removed);
        return removed;
    }

    /** A short pause between polls of the container state (a bounded poll, not synchronisation). */
    private static void pollPause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Every node under the root, depth first in name order, with data, normalised Stat and (if not open) ACL, as the
     * super user reads them.
     */
    List<String> dump() {
        List<String> out = new ArrayList<>();
        dump(root, out);
        return out;
    }

    private void dump(String path, List<String> out) {
        NodeData d;
        List<String> children;
        List<Acl> acl;
        try {
            d = admin.getData(path);
            children = new ArrayList<>(admin.getChildren(path));
            acl = admin.getAcl(path).acls();
        } catch (ZkException.NoNode e) {
            out.add(rel(path) + " gone");
            return;
        }
        out.add(rel(path) + " " + data(d.data()) + " " + stat(d.stat(), "dump(" + rel(path) + ")")
                + (acl.equals(Acls.OPEN_UNSAFE) ? "" : " acl=" + acl(acl)));
        Collections.sort(children);
        for (String c : children) {
            dump(path + "/" + c, out);
        }
    }

    @Override
    public void close() {
        try {
            closeOther();
        } finally {
            main.close();
        }
    }
}
