package dev.zkr.tree;

import dev.zkr.auth.Authorizer;
import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkException.Code;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The Prep stage, pure: validates a write {@link Request} against the applied {@link DataTree} plus the changes
 * prepared but not yet applied, and builds the {@link Txn}. Successful prepares are recorded in a pending overlay
 * under their zxid so later requests see them (e.g. consecutive sequential creates get increasing numbers before
 * any is applied); {@link #applied(long)} releases them once the tree has applied that zxid.
 *
 * <p>Zxids passed to {@link #prepare} must increase. Not thread-safe: the server prepares and releases inside a
 * round, on one thread at a time (see docs/architecture.md, Threads).
 */
public final class TxnPreparer {
    /** Default maximum node data size: 1 MiB. */
    public static final int DEFAULT_MAX_DATA_SIZE = 1 << 20;
    /** Default maximum number of ephemeral nodes one session may own. */
    public static final int DEFAULT_MAX_EPHEMERALS_PER_SESSION = 100_000;
    /** Default maximum encoded size of one txn: the txn log's record limit, 64 MiB. */
    public static final int DEFAULT_MAX_TXN_BYTES = 64 << 20;

    private final DataTree tree;
    private final int maxDataSize;
    private final int maxEphemeralsPerSession;
    private final int maxTxnBytes;
    private final Authorizer authorizer;
    /** ZooKeeper's system nodes, whose writes are refused (null: none shown, the tree is all there is). */
    private final SystemNodes system;
    private final PendingChanges pending = new PendingChanges();
    private final EphemeralCounts ephemeralCounts = new EphemeralCounts();

    /** A preparer with the default 1 MiB data limit. */
    public TxnPreparer(DataTree tree) {
        this(tree, DEFAULT_MAX_DATA_SIZE);
    }

    /** A preparer rejecting data longer than {@code maxDataSize} bytes with DATA_TOO_LARGE. */
    public TxnPreparer(DataTree tree, int maxDataSize) {
        this(tree, maxDataSize, DEFAULT_MAX_EPHEMERALS_PER_SESSION, DEFAULT_MAX_TXN_BYTES);
    }

    /**
     * A preparer with all its limits: data longer than {@code maxDataSize} → DATA_TOO_LARGE; an ephemeral create
     * that would give its session more than {@code maxEphemeralsPerSession} → TOO_MANY_EPHEMERALS; a txn whose log
     * record could exceed {@code maxTxnBytes} → TXN_TOO_LARGE.
     */
    public TxnPreparer(DataTree tree, int maxDataSize, int maxEphemeralsPerSession, int maxTxnBytes) {
        this(tree, maxDataSize, maxEphemeralsPerSession, maxTxnBytes, Authorizer.defaults());
    }

    /** As above, checking ACLs with these rules. */
    public TxnPreparer(DataTree tree, int maxDataSize, int maxEphemeralsPerSession, int maxTxnBytes,
                       Authorizer authorizer) {
        this(tree, maxDataSize, maxEphemeralsPerSession, maxTxnBytes, authorizer, null);
    }

    /**
     * As above, with ZooKeeper's system nodes shown over the tree ({@link SystemNodes}): writes to them are refused
     * as it says, a check op compares with their version.
     */
    public TxnPreparer(DataTree tree, int maxDataSize, int maxEphemeralsPerSession, int maxTxnBytes,
                       Authorizer authorizer, SystemNodes system) {
        if (maxDataSize < 0 || maxEphemeralsPerSession < 0 || maxTxnBytes <= 0) {
            throw new IllegalArgumentException("negative limit");
        }
        this.tree = tree;
        this.maxDataSize = maxDataSize;
        this.maxEphemeralsPerSession = maxEphemeralsPerSession;
        this.maxTxnBytes = maxTxnBytes;
        this.authorizer = authorizer;
        this.system = system;
    }

    /**
     * Validates the request issued by {@code sessionId} and builds its txn, to be logged and applied under
     * {@code zxid}. On failure nothing is recorded.
     */
    public Prepared prepare(Request request, long sessionId, long zxid) {
        return prepare(request, sessionId, null, zxid);
    }

    /**
     * As {@link #prepare(Request, long, long)} for a client of these authenticated ids: every op is checked against
     * the ACLs as ZooKeeper's PrepRequestProcessor checks it (NO_AUTH); {@code auth:} ACLs expand to these ids.
     * Null ids: a trusted request, not checked (the server's own, and tests).
     */
    public Prepared prepare(Request request, long sessionId, List<Id> authIds, long zxid) {
        Scratch scratch = new Scratch();
        scratch.ids = authIds;
        if (request instanceof Request.Multi multi) {
            List<Txn> txns = new ArrayList<>(multi.ops().size());
            for (int i = 0; i < multi.ops().size(); i++) {
                Request op = multi.ops().get(i);
                try {
                    if (!(op instanceof Request.Create || op instanceof Request.Delete
                            || op instanceof Request.SetData || op instanceof Request.Check)) {
                        throw new Failure(Code.BAD_ARGUMENTS, null);
                    }
                    txns.add(prepareOne(op, sessionId, scratch));
                } catch (Failure f) {
                    List<OpResult> results = new ArrayList<>(multi.ops().size());
                    for (int j = 0; j < multi.ops().size(); j++) {
                        Code c = j < i ? Code.OK : j == i ? f.code : Code.RUNTIME_INCONSISTENCY;
                        results.add(new OpResult.ErrorResult(c));
                    }
                    return new Prepared.Failed(f.code, f.path, f.getMessage(), results);
                }
            }
            Txn.Multi txn = new Txn.Multi(txns);
            try {
                checkSize(txn);
            } catch (Failure f) {
                List<OpResult> results = new ArrayList<>(txns.size());
                for (int j = 0; j < txns.size(); j++) {
                    results.add(new OpResult.ErrorResult(j == 0 ? f.code : Code.RUNTIME_INCONSISTENCY));
                }
                return new Prepared.Failed(f.code, f.path, f.getMessage(), results);
            }
            scratch.commit(zxid);
            return new Prepared.Ok(txn);
        }
        try {
            Txn txn = prepareOne(request, sessionId, scratch);
            checkSize(txn);
            scratch.commit(zxid);
            return new Prepared.Ok(txn);
        } catch (Failure f) {
            return new Prepared.Failed(f.code, f.path, f.getMessage(), List.of());
        }
    }

    private void checkSize(Txn txn) throws Failure {
        long bound = TxnSize.upperBound(txn);
        if (bound > maxTxnBytes) {
            throw new Failure(Code.TXN_TOO_LARGE, null, "the write could encode to " + bound
                    + " bytes, over the server's limit of " + maxTxnBytes + " bytes per txn; split it");
        }
    }

    /** The tree has applied every txn up to {@code zxid}: release their pending changes. */
    public void applied(long zxid) {
        pending.applied(zxid);
        ephemeralCounts.applied(zxid);
    }

    /** Number of paths with pending (prepared, unapplied) changes. */
    public int pendingCount() {
        return pending.size();
    }

    private Txn prepareOne(Request request, long sessionId, Scratch s) throws Failure {
        if (system != null && system.shownOver(tree)) {
            Txn check = systemNodeWrite(request);
            if (check != null) {
                return check;
            }
        }
        if (request instanceof Request.Create c) {
            return create(c, sessionId, s);
        } else if (request instanceof Request.Delete d) {
            String path = validPath(d.path(), false);
            if ("/".equals(path)) {
                throw new Failure(Code.BAD_ARGUMENTS, path);
            }
            if (s.ids != null) { // as ZooKeeper: the parent's DELETE permission is checked before the node is looked up
                String parentPath = DataTree.parentOf(path);
                s.check(s.require(parentPath), Perms.DELETE, path);
            }
            return delete(path, d.version(), s);
        } else if (request instanceof Request.SetData sd) {
            String path = validPath(sd.path(), false);
            checkData(sd.data(), path);
            NodeRecord node = s.require(path);
            s.check(node, Perms.WRITE, path);
            int newVersion = checkVersion(node, sd.version(), path) + 1;
            s.put(path, node.withVersion(newVersion));
            return new Txn.SetData(path, sd.data(), newVersion);
        } else if (request instanceof Request.Check c) {
            String path = validPath(c.path(), false);
            NodeRecord node = s.require(path);
            s.check(node, Perms.READ, path);
            checkVersion(node, c.version(), path);
            return new Txn.Check(path, c.version());
        } else if (request instanceof Request.SetAcl sa) {
            String path = validPath(sa.path(), false);
            List<Acl> acls = s.fixup(sa.acls(), path);
            NodeRecord node = s.require(path);
            s.check(node, Perms.ADMIN, path);
            if (sa.aversion() != -1 && sa.aversion() != node.aversion()) {
                throw new Failure(Code.BAD_VERSION, path);
            }
            int aversion = node.aversion() + 1;
            s.put(path, node.withAcl(acls, aversion));
            return new Txn.SetAcl(path, acls, aversion);
        } else if (request instanceof Request.CreateSession cs) {
            if (cs.timeoutMs() <= 0 || cs.password() == null || cs.sessionId() == 0) {
                throw new Failure(Code.BAD_ARGUMENTS, null);
            }
            return new Txn.CreateSession(cs.sessionId(), cs.timeoutMs(), cs.password());
        } else if (request instanceof Request.CloseSession cs) {
            return closeSession(cs.sessionId(), s);
        } else if (request instanceof Request.DeleteContainer dc) {
            String path = validPath(dc.path(), false);
            NodeRecord node = s.require(path);
            if (!node.container() && !node.ttl()) {
                throw new Failure(Code.BAD_ARGUMENTS, path);
            }
            return delete(path, node.ttl() ? dc.version() : -1, s);
        } else if (request instanceof Request.ChangeMembership cm) {
            return cm.next();
        }
        throw new Failure(Code.BAD_ARGUMENTS, null);
    }

    /**
     * A write that touches ZooKeeper's system nodes: refused as {@link SystemNodes#refusal} says, or, for a check op
     * on one of them, its txn (the version compared with theirs). Null for any other write.
     */
    private Txn systemNodeWrite(Request request) throws Failure {
        SystemNodes.Refusal refusal = null;
        if (request instanceof Request.Create c && c.path() != null && c.mode() != null) {
            refusal = SystemNodes.refusal(c.path(), true, false);
            if (refusal != null && c.mode().isSequential() && SystemNodes.isSystem(c.path())) {
                refusal = null; // the sequence suffix makes another path
            }
        } else if (request instanceof Request.Delete d && d.path() != null) {
            refusal = SystemNodes.refusal(d.path(), false, true);
        } else if (request instanceof Request.SetData sd && sd.path() != null) {
            refusal = SystemNodes.refusal(sd.path(), false, false);
        } else if (request instanceof Request.SetAcl sa && sa.path() != null) {
            refusal = SystemNodes.refusal(sa.path(), false, false);
        } else if (request instanceof Request.Check c && SystemNodes.isSystem(c.path())) {
            if (c.version() != -1 && c.version() != system.stat(c.path()).version()) {
                throw new Failure(Code.BAD_VERSION, c.path());
            }
            return new Txn.Check(c.path(), c.version());
        }
        if (refusal != null) {
            String path = request instanceof Request.Create c ? c.path() : null;
            throw new Failure(refusal.code(), path != null ? path : pathOf(request), refusal.message());
        }
        return null;
    }

    private static String pathOf(Request r) {
        if (r instanceof Request.Delete d) {
            return d.path();
        } else if (r instanceof Request.SetData sd) {
            return sd.path();
        } else if (r instanceof Request.SetAcl sa) {
            return sa.path();
        }
        return null;
    }

    private Txn create(Request.Create c, long sessionId, Scratch s) throws Failure {
        CreateMode mode = c.mode();
        if (mode == null) {
            throw new Failure(Code.BAD_ARGUMENTS, c.path());
        }
        try { // first, as ZooKeeper's validateCreateRequest
            mode.checkTtl(c.ttlMs());
        } catch (IllegalArgumentException e) {
            throw new Failure(Code.BAD_ARGUMENTS, c.path(), e.getMessage());
        }
        String path = validPath(c.path(), mode.isSequential());
        if ("/".equals(path) && !mode.isSequential()) {
            throw new Failure(Code.BAD_ARGUMENTS, path);
        }
        checkData(c.data(), path);
        long ttl = mode.isTtl() ? c.ttlMs() : 0;
        long owner = mode.isEphemeral() ? sessionId : 0;
        if (mode.isEphemeral() && sessionId == 0) {
            throw new Failure(Code.BAD_ARGUMENTS, path);
        }
        List<Acl> acls = c.acls() == null ? Acls.OPEN_UNSAFE : s.fixup(c.acls(), path);
        String parentPath = DataTree.parentOf(path);
        NodeRecord parent = s.get(parentPath);
        if (parent == null) {
            throw new Failure(Code.NO_NODE, parentPath);
        }
        s.check(parent, Perms.CREATE, path);
        if (mode.isSequential()) {
            path = withSequenceSuffix(path, parent.cversion());
        }
        if (s.get(path) != null) {
            throw new Failure(Code.NODE_EXISTS, path);
        }
        if (parent.ephemeralOwner() != 0) {
            throw new Failure(Code.NO_CHILDREN_FOR_EPHEMERALS, path);
        }
        if (owner != 0 && s.ephemeralCount(owner) >= maxEphemeralsPerSession) {
            throw new Failure(Code.TOO_MANY_EPHEMERALS, path, "session 0x" + Long.toHexString(owner)
                    + " already owns " + maxEphemeralsPerSession + " ephemeral nodes (maxEphemeralsPerSession)");
        }
        int parentCversion = parent.cversion() + 1;
        s.put(parentPath, parent.withChild(parentCversion, +1));
        s.put(path, new NodeRecord(0, 0, 0, owner, mode.isContainer(), acls, 0, ttl > 0));
        return new Txn.CreateNode(path, c.data(), owner, mode.isContainer(), parentCversion, acls, ttl);
    }

    /**
     * The path followed by the counter as 10 zero-padded digits ({@code %010d}, as {@link ZkPaths#sequenceSuffix}),
     * without the cost of {@code String.format} on every sequential create.
     */
    static String withSequenceSuffix(String path, int counter) {
        if (counter < 0) {
            return path + ZkPaths.sequenceSuffix(counter);
        }
        String digits = Integer.toString(counter);
        StringBuilder sb = new StringBuilder(path.length() + 10).append(path);
        for (int i = digits.length(); i < 10; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    private Txn delete(String path, int version, Scratch s) throws Failure {
        NodeRecord node = s.require(path);
        checkVersion(node, version, path);
        if (node.numChildren() > 0) {
            throw new Failure(Code.NOT_EMPTY, path);
        }
        markDeleted(path, s);
        return new Txn.DeleteNode(path);
    }

    private void markDeleted(String path, Scratch s) {
        String parentPath = DataTree.parentOf(path);
        NodeRecord parent = s.get(parentPath);
        if (parent != null) {
            s.put(parentPath, parent.withChild(parent.cversion(), -1));
        }
        s.put(path, null);
    }

    private Txn closeSession(long sessionId, Scratch s) {
        TreeSet<String> paths = new TreeSet<>();
        for (String p : tree.ephemerals(sessionId)) {
            paths.add(p);
        }
        for (PendingChanges.Change c : pending.latest()) {
            if (c.record() != null && c.record().ephemeralOwner() == sessionId) {
                paths.add(c.path());
            }
        }
        for (String p : paths) {
            NodeRecord r = s.get(p);
            if (r != null && r.ephemeralOwner() == sessionId) {
                markDeleted(p, s); // so later prepares see the nodes gone
            }
        }
        return new Txn.CloseSession(sessionId); // the tree deletes what the session owns when it applies this
    }

    private static String validPath(String path, boolean sequential) throws Failure {
        try {
            return ZkPaths.validate(path, sequential);
        } catch (ZkException.InvalidPath e) {
            throw new Failure(Code.INVALID_PATH, path);
        }
    }

    /** Data within the limit; null is ZooKeeper's null data (stored and read back as null, dataLength 0). */
    private void checkData(byte[] data, String path) throws Failure {
        if (data != null && data.length > maxDataSize) {
            throw new Failure(Code.DATA_TOO_LARGE, path);
        }
    }

    private static int checkVersion(NodeRecord node, int expected, String path) throws Failure {
        if (expected != -1 && expected != node.version()) {
            throw new Failure(Code.BAD_VERSION, path);
        }
        return node.version();
    }

    /** The view of one prepare call: its own changes over the pending overlay over the applied tree. */
    private final class Scratch {
        private final Map<String, NodeRecord> local = new LinkedHashMap<>();
        /** The client's authenticated ids; null = trusted (no checks). */
        List<Id> ids;

        /** NO_AUTH unless the ids grant {@code perm} on the node (trusted requests pass). */
        void check(NodeRecord node, int perm, String path) throws Failure {
            if (ids != null && !authorizer.allowed(node.acls(), perm, ids)) {
                throw new Failure(Code.NO_AUTH, path);
            }
        }

        /** The ACL to store: validated, {@code auth:} expanded (INVALID_ACL). */
        List<Acl> fixup(List<Acl> acls, String path) throws Failure {
            try {
                return authorizer.fixup(acls, ids == null ? List.of() : ids);
            } catch (Authorizer.InvalidAcl e) {
                throw new Failure(Code.INVALID_ACL, path, e.getMessage());
            }
        }

        /** Change of each session's ephemeral count made by this prepare. */
        private final Map<Long, Integer> ephemeralDelta = new HashMap<>();

        NodeRecord get(String path) {
            if (local.containsKey(path)) {
                return local.get(path);
            }
            PendingChanges.Change c = pending.get(path);
            return c != null ? c.record() : tree.record(path);
        }

        NodeRecord require(String path) throws Failure {
            NodeRecord r = get(path);
            if (r == null) {
                throw new Failure(Code.NO_NODE, path);
            }
            return r;
        }

        void put(String path, NodeRecord record) {
            NodeRecord before = get(path);
            long was = before == null ? 0 : before.ephemeralOwner();
            long now = record == null ? 0 : record.ephemeralOwner();
            if (was != now) {
                if (was != 0) {
                    ephemeralDelta.merge(was, -1, Integer::sum);
                }
                if (now != 0) {
                    ephemeralDelta.merge(now, 1, Integer::sum);
                }
            }
            local.put(path, record);
        }

        /** The session's projected number of ephemerals: applied, plus pending, plus this prepare's. */
        int ephemeralCount(long sessionId) {
            return tree.ephemeralCount(sessionId) + ephemeralCounts.delta(sessionId)
                    + ephemeralDelta.getOrDefault(sessionId, 0);
        }

        void commit(long zxid) {
            local.forEach((path, record) -> pending.put(zxid, path, record));
            ephemeralCounts.put(zxid, ephemeralDelta);
        }
    }

    /** A validation failure (no stack trace: used for control flow). */
    private static final class Failure extends Exception {
        final Code code;
        final String path;

        Failure(Code code, String path) {
            this(code, path, null);
        }

        Failure(Code code, String path, String message) {
            super(message, null, false, false);
            this.code = code;
            this.path = path;
        }
    }
}
