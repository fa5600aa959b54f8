package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkException.Code;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The obviously-correct reference: a sorted map of path to node, children found by scanning, multi by copying the
 * whole map. Requests are executed sequentially in prepare order.
 */
final class NaiveModel {
    static final class N {
        byte[] data = new byte[0];
        long czxid, mzxid, pzxid, ctime, mtime, owner;
        int version, cversion;
        boolean container;
        long ttl;

        N copy() {
            N n = new N();
            n.data = data;
            n.czxid = czxid;
            n.mzxid = mzxid;
            n.pzxid = pzxid;
            n.ctime = ctime;
            n.mtime = mtime;
            n.owner = owner;
            n.version = version;
            n.cversion = cversion;
            n.container = container;
            n.ttl = ttl;
            return n;
        }
    }

    /** Outcome: ok + created paths, or the error code (+ per-op codes for a multi). */
    record Outcome(Code code, List<String> created, List<Code> multiCodes) {
    }

    private static final class Fail extends Exception {
        final Code code;

        Fail(Code code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    TreeMap<String, N> nodes = new TreeMap<>();
    TreeSet<Long> sessions = new TreeSet<>();
    long zxid;
    final int maxData;

    NaiveModel(int maxData) {
        this.maxData = maxData;
        nodes.put("/", new N());
    }

    Outcome run(Request r, long session) {
        TreeMap<String, N> backup = new TreeMap<>();
        nodes.forEach((k, v) -> backup.put(k, v.copy()));
        TreeSet<Long> sessionsBackup = new TreeSet<>(sessions);
        long z = zxid + 1;
        List<String> created = new ArrayList<>();
        if (r instanceof Request.Multi m) {
            for (int i = 0; i < m.ops().size(); i++) {
                try {
                    exec(m.ops().get(i), session, z, created);
                } catch (Fail f) {
                    nodes = backup;
                    sessions = sessionsBackup;
                    List<Code> codes = new ArrayList<>();
                    for (int j = 0; j < m.ops().size(); j++) {
                        codes.add(j < i ? Code.OK : j == i ? f.code : Code.RUNTIME_INCONSISTENCY);
                    }
                    return new Outcome(f.code, List.of(), codes);
                }
            }
        } else {
            try {
                exec(r, session, z, created);
            } catch (Fail f) {
                nodes = backup;
                sessions = sessionsBackup;
                return new Outcome(f.code, List.of(), List.of());
            }
        }
        zxid = z;
        return new Outcome(Code.OK, created, List.of());
    }

    private static String parentOf(String p) {
        int i = p.lastIndexOf('/');
        return i == 0 ? "/" : p.substring(0, i);
    }

    private static void valid(String path, boolean seq) throws Fail {
        try {
            ZkPaths.validate(path, seq);
        } catch (ZkException.InvalidPath e) {
            throw new Fail(Code.INVALID_PATH);
        }
    }

    private void checkData(byte[] d) throws Fail {
        if (d == null) {
            throw new Fail(Code.BAD_ARGUMENTS);
        }
        if (d.length > maxData) {
            throw new Fail(Code.DATA_TOO_LARGE);
        }
    }

    private N require(String path) throws Fail {
        N n = nodes.get(path);
        if (n == null) {
            throw new Fail(Code.NO_NODE);
        }
        return n;
    }

    private static void version(N n, int v) throws Fail {
        if (v != -1 && v != n.version) {
            throw new Fail(Code.BAD_VERSION);
        }
    }

    private boolean hasChildren(String path) {
        for (String p : nodes.keySet()) {
            if (!p.equals("/") && parentOf(p).equals(path)) {
                return true;
            }
        }
        return false;
    }

    private void remove(String path, long z) {
        nodes.remove(path);
        N parent = nodes.get(parentOf(path));
        parent.pzxid = z;
    }

    private void exec(Request r, long session, long z, List<String> created) throws Fail {
        long time = z * 10;
        if (r instanceof Request.Create c) {
            CreateMode mode = c.mode();
            if (mode.isTtl() ? c.ttlMs() <= 0 || c.ttlMs() > CreateMode.MAX_TTL_MS : c.ttlMs() >= 0) {
                throw new Fail(Code.BAD_ARGUMENTS);
            }
            valid(c.path(), mode.isSequential());
            if (c.path().equals("/") && !mode.isSequential()) {
                throw new Fail(Code.BAD_ARGUMENTS);
            }
            checkData(c.data());
            if (mode.isEphemeral() && session == 0) {
                throw new Fail(Code.BAD_ARGUMENTS);
            }
            N parent = require(parentOf(c.path()));
            String path = mode.isSequential() ? c.path() + ZkPaths.sequenceSuffix(parent.cversion) : c.path();
            if (nodes.containsKey(path)) {
                throw new Fail(Code.NODE_EXISTS);
            }
            if (parent.owner != 0) {
                throw new Fail(Code.NO_CHILDREN_FOR_EPHEMERALS);
            }
            parent.cversion++;
            parent.pzxid = z;
            N n = new N();
            n.data = c.data();
            n.czxid = n.mzxid = n.pzxid = z;
            n.ctime = n.mtime = time;
            n.owner = mode.isEphemeral() ? session : 0;
            n.container = mode.isContainer();
            n.ttl = mode.isTtl() ? c.ttlMs() : 0;
            nodes.put(path, n);
            created.add(path);
        } else if (r instanceof Request.Delete d) {
            valid(d.path(), false);
            if (d.path().equals("/")) {
                throw new Fail(Code.BAD_ARGUMENTS);
            }
            N n = require(d.path());
            version(n, d.version());
            if (hasChildren(d.path())) {
                throw new Fail(Code.NOT_EMPTY);
            }
            remove(d.path(), z);
        } else if (r instanceof Request.SetData s) {
            valid(s.path(), false);
            checkData(s.data());
            N n = require(s.path());
            version(n, s.version());
            n.version++;
            n.data = s.data();
            n.mzxid = z;
            n.mtime = time;
        } else if (r instanceof Request.Check c) {
            valid(c.path(), false);
            version(require(c.path()), c.version());
        } else if (r instanceof Request.CreateSession cs) {
            sessions.add(cs.sessionId());
        } else if (r instanceof Request.CloseSession cs) {
            sessions.remove(cs.sessionId());
            for (String p : new ArrayList<>(nodes.keySet())) {
                N n = nodes.get(p);
                if (n != null && n.owner == cs.sessionId()) {
                    remove(p, z);
                }
            }
        } else if (r instanceof Request.DeleteContainer dc) {
            N n = require(dc.path());
            if (!n.container && n.ttl == 0) {
                throw new Fail(Code.BAD_ARGUMENTS);
            }
            if (n.ttl > 0) {
                version(n, dc.version());
            }
            if (hasChildren(dc.path())) {
                throw new Fail(Code.NOT_EMPTY);
            }
            remove(dc.path(), z);
        } else {
            throw new Fail(Code.BAD_ARGUMENTS);
        }
    }

    List<String> containersToDelete() {
        List<String> due = new ArrayList<>();
        nodes.forEach((p, n) -> {
            if (n.container && n.cversion > 0 && !hasChildren(p)) {
                due.add(p);
            }
        });
        return due;
    }

    /** TTL nodes without children whose mtime is more than their TTL before {@code now}, with their versions. */
    List<DataTree.ExpiredTtl> expiredTtlNodes(long now) {
        List<DataTree.ExpiredTtl> due = new ArrayList<>();
        nodes.forEach((p, n) -> {
            if (n.ttl > 0 && !hasChildren(p) && now - n.mtime > n.ttl) {
                due.add(new DataTree.ExpiredTtl(p, n.version));
            }
        });
        return due;
    }

    /** path to "stat data children" for every node. */
    Map<String, String> view() {
        Map<String, String> v = new TreeMap<>();
        nodes.forEach((p, n) -> {
            List<String> kids = new ArrayList<>();
            for (String q : nodes.keySet()) {
                if (!q.equals("/") && parentOf(q).equals(p)) {
                    kids.add(ZkPaths.name(q));
                }
            }
            // cversion counts creations; the Stat reports creations + deletions, as ZooKeeper does
            Stat st = new Stat(n.czxid, n.mzxid, n.pzxid, n.ctime, n.mtime, n.version, 2 * n.cversion - kids.size(),
                    0, n.owner, n.data.length, kids.size());
            v.put(p, st + " " + HexFormat.of().formatHex(n.data) + " " + kids);
        });
        return v;
    }

    /** The same view read from a DataTree through its public read API (walking from the root). */
    static Map<String, String> view(DataTree tree) {
        Map<String, String> v = new TreeMap<>();
        walk(tree, "/", v);
        return v;
    }

    private static void walk(DataTree tree, String path, Map<String, String> v) {
        dev.zkr.client.Children c = tree.getChildren(path);
        dev.zkr.client.NodeData d = tree.getData(path);
        List<String> kids = new ArrayList<>(c.names());
        kids.sort(null);
        v.put(path, d.stat() + " " + HexFormat.of().formatHex(d.data()) + " " + kids);
        for (String k : kids) {
            walk(tree, ZkPaths.join(path, k), v);
        }
    }
}
