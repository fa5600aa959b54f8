package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Children;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.NodeData;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkException;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The znode tree with ZooKeeper's {@link Stat} semantics, plus the committed sessions.
 *
 * <p><b>Threads.</b> The server applies and reads inside its rounds, one thread at a time; the one exception is the
 * snapshot thread, which writes a snapshot while applies continue. That is what the per-node locks are for: each
 * node's data and stat are read and written atomically, so a fuzzy snapshot sees every node whole (see
 * docs/architecture.md, Threads).
 *
 * <p><b>Apply.</b> {@link #apply} is deterministic and tolerant of replay: a create of an existing node keeps the
 * node (but still raises the parent's cversion/pzxid if the txn's values are higher), a delete of a missing node
 * still sets the parent's pzxid, a setData of a missing node is ignored. A txn never touches a node with a higher
 * czxid than its own zxid (a later incarnation of the path, which the snapshot already holds): a setData or delete
 * of it, a create under it or a CloseSession of a reused session id leave it alone. Replaying the log from the zxid
 * a fuzzy snapshot started at therefore converges to the tree the log describes.
 *
 * <p><b>Snapshots.</b> {@link #writeSnapshot(DataOutput)} writes the last applied zxid (as of the start), the
 * committed sessions and every node, one by one, children before their parent, while applies may continue (fuzzy).
 * The order is what lets a path-free {@link Txn.CloseSession} replay: a closed ephemeral the snapshot lacks was
 * deleted before its parent was read, so the parent's pzxid already holds the close. {@link #readSnapshot(DataInput)}
 * rebuilds a tree; recovery then applies every logged txn with {@code zxid > tree.lastZxid()} in order.
 * Format (version 3): {@code int magic, int version, long lastZxid, (byte 1, session)*, byte 0,
 * (byte 1, node with its kind byte, aversion and ACL id)*, byte 0, int n, (long aclId, acl)^n, (byte 1,
 * long sessionId, int highestXid, int ackedXid, int n, saved reply^n)*, byte 0, trailer}; version 2 (no session writes; TTL
 * nodes from the servers that wrote it with TTLs) and version 1 (no aversion, ACL id or table either) are still
 * read. Framing, CRC and files are the storage layer's job.
 *
 * <p><b>Session writes.</b> For every committed session the tree keeps the highest client xid applied and the
 * replies of its writes its client may still send again ({@link #savedReply}: from the lowest xid the client said
 * it still waited for, at most its last {@link SessionWrites#WINDOW}), recorded when their txns are
 * applied, so every replica holds them and they survive snapshots, SNAP transfer and restarts: a write sent again
 * after a lost reply is answered with the saved reply instead of being applied twice (docs/exactly-once.md).
 *
 * <p><b>Containers.</b> A container that had children (cversion &gt; 0) and has none is reported by
 * {@link #containersToDelete()}. Containers that never got a child are not reported (ZooKeeper deletes those after
 * a grace period; zkr does not, yet). Containers report {@code ephemeralOwner == 0} in their Stat.
 *
 * <p><b>TTL nodes.</b> A TTL node with no children whose data was last set (mtime) longer ago than its TTL is
 * reported by {@link #expiredTtlNodes(long)}; the server deletes it as it deletes containers. TTL nodes report
 * {@code ephemeralOwner == 0} too. In a snapshot a node's container flag is a kind byte (0 plain, 1 container,
 * 2 TTL node followed by its TTL as a long): snapshots without TTL nodes are byte for byte as before.
 *
 * <p><b>ACLs.</b> Every node has an ACL; the distinct ACLs are kept once each in an {@link AclTable} with
 * reference counts (nodes refer to their entry), and a snapshot writes each node's ACL id and the table once
 * (format version 2; version 1 snapshots, from before ACLs, load with every node open). aversion counts ACL
 * changes, as in ZooKeeper.
 */
public final class DataTree {
    private static final int SNAPSHOT_MAGIC = 0x5A4B5253; // "ZKRS"
    private static final int SNAPSHOT_VERSION = 3;
    /** Snapshots from before exactly-once writes: no session writes section (docs/exactly-once.md). */
    private static final int SNAPSHOT_VERSION_NO_WRITES = 2;
    /** Snapshots from before ACLs: nodes without aversion or ACL id, no ACL table. */
    private static final int SNAPSHOT_VERSION_NO_ACLS = 1;

    /**
     * The root: every node is reached from it through its ancestors' {@link ChildSet}s, by name (no map of paths,
     * docs/architecture.md, "The tree in memory"). Replaced only by {@link #replaceWith}.
     */
    private volatile Node root;
    /**
     * Nodes whose parent a fuzzy snapshot lacked (it was deleted while the snapshot was written), by path, until
     * replay deletes them; empty otherwise. Lookups that fail in the tree look here while it is not empty.
     */
    private final ConcurrentHashMap<String, Node> orphans = new ConcurrentHashMap<>();
    /** Number of nodes, the root and orphans included; written by the apply thread. */
    private volatile int nodeCount = 1;
    private final ConcurrentHashMap<Long, SessionInfo> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Set<String>> ephemerals = new ConcurrentHashMap<>();
    /** Per committed session: its applied client writes, for exactly-once (docs/exactly-once.md). */
    private final ConcurrentHashMap<Long, SessionWrites> writes = new ConcurrentHashMap<>();
    private final Set<String> containers = ConcurrentHashMap.newKeySet();
    private final Set<String> ttlNodes = ConcurrentHashMap.newKeySet();
    private final AclTable acls = new AclTable();
    private volatile long lastZxid;
    /**
     * The newest txn time applied (or read from a snapshot; 0 when unknown): a server that got its state from a
     * snapshot stamps its next txns and EPOCH record no older (TxnClock), even though it never logged those txns.
     */
    private volatile long lastTxnTime;
    /**
     * The membership records applied, newest last, each with its zxid (docs/membership.md): a snapshot records the
     * newest one at or below its zxid (applies go on while it is written), so a few are kept; empty while the
     * ensemble never changed shape (its members are the configured ones).
     */
    private volatile List<AppliedMembership> memberships = List.of();
    private static final int MEMBERSHIPS_KEPT = 8;

    /**
     * A membership record as applied: its zxid, its members, and its txn's time (0 when read from a snapshot, which
     * does not record it).
     */
    public record AppliedMembership(long zxid, Txn.Membership membership, long time) {

        /** A record read from a snapshot: its time unknown. */
        public AppliedMembership(long zxid, Txn.Membership membership) {
            this(zxid, membership, 0);
        }
    }

    /** An empty tree: only the root, with a zeroed stat. */
    public DataTree() {
        root = Node.root();
        root.acl = acls.intern(Acls.OPEN_UNSAFE);
    }

    /**
     * The node at this path, or null: a walk from the root, one ChildSet probe per path component, each under the
     * parent's monitor (the snapshot thread reads child sets while the apply thread changes them).
     */
    private Node lookup(String path) {
        return walk(root, orphans, path);
    }

    /**
     * The node at {@code path} under {@code root}, or null; where a component is missing, a node of {@code orphans}
     * (by path) at that or a deeper prefix of the path continues the walk.
     */
    static Node walk(Node root, Map<String, Node> orphans, String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        Node n = root;
        int from = 1;
        while (path.length() > 1) {
            int slash = path.indexOf('/', from);
            int to = slash < 0 ? path.length() : slash;
            Node next;
            synchronized (n) {
                next = n.child(path, from, to);
            }
            while (next == null) { // only right after a fuzzy snapshot read: an orphan may hang here or deeper
                if (orphans.isEmpty()) {
                    return null;
                }
                next = orphans.get(path.substring(0, to));
                if (next == null) {
                    if (to == path.length()) {
                        return null;
                    }
                    slash = path.indexOf('/', to + 1);
                    to = slash < 0 ? path.length() : slash;
                }
            }
            if (slash < 0) {
                return next;
            }
            n = next;
            from = to + 1;
        }
        return n;
    }

    /**
     * Calls {@code action} with every node and its path, the orphans' subtrees included: parents before children
     * (the root first), each node's children in slot order. Child sets are read under their node's monitor.
     */
    private void forEachNode(java.util.function.BiConsumer<String, Node> action) {
        ArrayDeque<Map.Entry<String, Node>> todo = new ArrayDeque<>();
        todo.push(Map.entry("/", root));
        orphans.forEach((p, n) -> todo.addLast(Map.entry(p, n)));
        while (!todo.isEmpty()) {
            Map.Entry<String, Node> e = todo.pop();
            String path = e.getKey();
            Node n = e.getValue();
            action.accept(path, n);
            List<Node> kids;
            synchronized (n) {
                ChildSet c = n.children();
                kids = c == null ? List.of() : c.nodes();
            }
            String prefix = "/".equals(path) ? "/" : path + "/";
            for (int i = kids.size() - 1; i >= 0; i--) {
                todo.push(Map.entry(prefix + kids.get(i).name(), kids.get(i)));
            }
        }
    }

    /** Every node by path (a copy; for whole-tree comparisons, not for large trees on the request path). */
    private Map<String, Node> nodesByPath() {
        Map<String, Node> all = new HashMap<>();
        forEachNode(all::put);
        return all;
    }

    // ---- reads ---------------------------------------------------------------------------------------------------

    /** The node's data and stat, read atomically, or null if it does not exist. Do not modify the array. */
    public NodeData getData(String path) {
        return readLive(path, n -> new NodeData(n.data(), n.statLocked()));
    }

    /** The node's stat, or null if it does not exist. */
    public Stat exists(String path) {
        return readLive(path, Node::statLocked);
    }

    /** The child names (unordered) and the node's stat, or null if it does not exist. */
    public Children getChildren(String path) {
        return readLive(path, n -> new Children(n.children() == null ? List.of() : n.children().names(),
                n.statLocked()));
    }

    /** The node's ACL and stat, read atomically, or null if it does not exist. */
    public NodeAcl getAcl(String path) {
        return readLive(path, n -> new NodeAcl(n.acls(), n.statLocked()));
    }

    /** The node's ACL, or null if it does not exist. */
    public List<Acl> aclOf(String path) {
        return readLive(path, Node::acls);
    }

    /** Number of distinct ACLs the tree holds (each stored once, however many nodes share it). */
    public int distinctAcls() {
        return acls.size();
    }

    /** {@code read} applied to the node under its lock, or null if the node does not exist (or was just deleted). */
    private <T> T readLive(String path, Function<Node, T> read) {
        Node n = lookup(path);
        if (n == null) {
            return null;
        }
        synchronized (n) {
            return n.deleted() ? null : read.apply(n);
        }
    }

    /** Whether a node exists at {@code path} (cheaper than {@link #exists}: no Stat). */
    public boolean contains(String path) {
        Node n = lookup(path);
        if (n == null) {
            return false;
        }
        synchronized (n) {
            return !n.deleted();
        }
    }

    /** The zxid of the last applied txn (or the snapshot's zxid after a restore). */
    public long lastZxid() {
        return lastZxid;
    }

    /** The newest txn time applied or read from a snapshot (0 when unknown: a snapshot written before it was kept). */
    public long lastTxnTime() {
        return lastTxnTime;
    }

    /** Number of nodes including the root. */
    public int nodeCount() {
        return nodeCount;
    }

    /** Number of committed sessions. */
    public int sessionCount() {
        return sessions.size();
    }

    /** Number of ephemeral nodes, all sessions together. */
    public int ephemeralTotal() {
        int n = 0;
        for (Set<String> set : ephemerals.values()) {
            n += set.size();
        }
        return n;
    }

    /**
     * Approximate bytes the tree holds: every node's data and path (UTF-16 chars counted as one byte). A walk of the
     * whole tree without locks: for metrics, not for the request path.
     */
    public long approximateBytes() {
        long bytes = 0;
        ArrayDeque<Node> todo = new ArrayDeque<>();
        ArrayDeque<Integer> pathLengths = new ArrayDeque<>(); // no path strings: their lengths, from the parents'
        todo.push(root);
        pathLengths.push(1);
        orphans.forEach((p, n) -> {
            todo.push(n);
            pathLengths.push(p.length());
        });
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            int pathLength = pathLengths.pop();
            bytes += pathLength + NodeBytes.dataLength(n.packed());
            List<Node> kids;
            synchronized (n) {
                ChildSet c = n.children();
                kids = c == null ? List.of() : c.nodes();
            }
            int prefix = n == root ? 1 : pathLength + 1;
            for (Node k : kids) {
                todo.push(k);
                pathLengths.push(prefix + NodeBytes.nameChars(k.packed()));
            }
        }
        return bytes;
    }

    /** The paths of the ephemeral nodes the session owns (a copy, sorted). */
    public List<String> ephemerals(long sessionId) {
        Set<String> set = ephemerals.get(sessionId);
        return set == null ? List.of() : new ArrayList<>(new TreeSet<>(set));
    }

    /**
     * The session's ephemeral paths that start with {@code prefix}, sorted: ZooKeeper's {@code getEphemerals}, whose
     * prefix is a plain string prefix ({@code /a} also matches {@code /ab}); null, blank or {@code /} means all.
     */
    public List<String> ephemerals(long sessionId, String prefix) {
        List<String> all = ephemerals(sessionId);
        if (prefix == null || prefix.isBlank() || "/".equals(prefix.trim())) {
            return all;
        }
        List<String> matching = new ArrayList<>(all.size());
        for (String p : all) {
            if (p.startsWith(prefix)) {
                matching.add(p);
            }
        }
        return matching;
    }

    /**
     * The number of all descendants of the node (ZooKeeper's {@code getAllChildrenNumber}), or -1 if it does not
     * exist. Walks the subtree: its cost grows with the answer.
     */
    public int allChildrenNumber(String path) {
        Node start = lookup(path);
        if (start == null) {
            return -1;
        }
        int count = 0;
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(start);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            List<Node> kids;
            synchronized (n) {
                if (n.deleted()) {
                    if (n == start) {
                        return -1;
                    }
                    continue;
                }
                kids = n.children() == null ? List.of() : n.children().nodes();
            }
            count += kids.size();
            kids.forEach(todo::push);
        }
        return count;
    }

    /** The number of ephemeral nodes the session owns. */
    public int ephemeralCount(long sessionId) {
        Set<String> set = ephemerals.get(sessionId);
        return set == null ? 0 : set.size();
    }

    /** The committed sessions (an unmodifiable copy). */
    public Map<Long, SessionInfo> sessions() {
        return Map.copyOf(sessions);
    }

    /** The committed session, or null. */
    public SessionInfo session(long sessionId) {
        return sessions.get(sessionId);
    }

    /**
     * The saved reply of the session's write {@code xid}, or null: never applied, or applied so long ago that its
     * client has had the reply (docs/exactly-once.md).
     */
    public SavedReply savedReply(long sessionId, int xid) {
        SessionWrites w = writes.get(sessionId);
        return w == null ? null : w.find(xid);
    }

    /**
     * True if the session's reply of {@code xid} may have been dropped to keep its window (a client that sends a
     * write again after more than the window of later writes).
     */
    public boolean replyDropped(long sessionId, int xid) {
        SessionWrites w = writes.get(sessionId);
        return w != null && w.evicted(xid);
    }

    /**
     * True if the session's client said it has the reply of {@code xid}: an applied write of the session carried an
     * acknowledgement after it (docs/exactly-once.md, The bound).
     */
    public boolean acknowledged(long sessionId, int xid) {
        SessionWrites w = writes.get(sessionId);
        return w != null && w.acknowledged(xid);
    }

    /** The highest client xid applied for the session (0: none, or no such session). */
    public int highestAppliedXid(long sessionId) {
        SessionWrites w = writes.get(sessionId);
        return w == null ? 0 : w.highestXid();
    }

    /**
     * True if the session's write {@code xid} is at or before the highest xid applied for it (none applied: false).
     * Xids compare as serial numbers: a client's xids wrap past {@code Integer.MAX_VALUE}.
     */
    public boolean appliedUpTo(long sessionId, int xid) {
        int highest = highestAppliedXid(sessionId);
        return highest != 0 && !SessionWrites.after(xid, highest);
    }

    /** The number of the session's saved write replies. */
    public int savedReplyCount(long sessionId) {
        SessionWrites w = writes.get(sessionId);
        return w == null ? 0 : w.replies().size();
    }

    /** The number of saved write replies, all sessions together. */
    public int savedReplyCount() {
        int n = 0;
        for (SessionWrites w : writes.values()) {
            n += w.replies().size();
        }
        return n;
    }

    /**
     * Containers that had children and have none now, sorted: the server turns each into a
     * {@link Request.DeleteContainer} request.
     */
    public List<String> containersToDelete() {
        List<String> due = new ArrayList<>();
        for (String path : containers) {
            Node n = lookup(path);
            if (n != null) {
                synchronized (n) {
                    if (!n.deleted() && n.container() && n.cversion() > 0 && n.numChildren() == 0) {
                        due.add(path);
                    }
                }
            }
        }
        Collections.sort(due);
        return due;
    }

    /** A TTL node due for deletion, and the data version it was judged at. */
    public record ExpiredTtl(String path, int version) {
    }

    /**
     * TTL nodes without children whose mtime is more than their TTL before {@code now} (server time, ms), sorted by
     * path: the server turns each into a {@link Request.DeleteContainer} at the version seen here, so a write
     * prepared meanwhile keeps the node.
     */
    public List<ExpiredTtl> expiredTtlNodes(long now) {
        List<ExpiredTtl> due = new ArrayList<>();
        for (String path : ttlNodes) {
            Node n = lookup(path);
            if (n != null) {
                synchronized (n) {
                    if (!n.deleted() && n.numChildren() == 0 && now - n.mtime > n.ttlMs()) {
                        due.add(new ExpiredTtl(path, n.version));
                    }
                }
            }
        }
        due.sort(java.util.Comparator.comparing(ExpiredTtl::path));
        return due;
    }

    /** Projected-state view of one node for Prep, or null if it does not exist. */
    NodeRecord record(String path) {
        Node n = lookup(path);
        if (n == null) {
            return null;
        }
        synchronized (n) {
            if (n.deleted()) {
                return null;
            }
            return new NodeRecord(n.version, n.cversion(), n.numChildren(), n.ephemeralOwner(), n.container(),
                    n.acls(), n.aversion(), n.ttlMs() > 0);
        }
    }

    // ---- apply ---------------------------------------------------------------------------------------------------

    /** Applies one txn (apply thread only) and returns the client-visible outcome and the watch triggers. */
    public ApplyResult apply(TxnHeader header, Txn txn) {
        List<WatchTrigger> triggers = new ArrayList<>(2);
        ApplyResult result;
        if (txn instanceof Txn.Multi m) {
            List<OpResult> results = new ArrayList<>(m.ops().size());
            for (Txn op : m.ops()) {
                results.add(applyOp(header, op, triggers));
            }
            result = new ApplyResult(ZkException.Code.OK, null, results, triggers);
        } else if (txn instanceof Txn.CreateSession cs) {
            sessions.put(cs.sessionId(), new SessionInfo(cs.sessionId(), cs.timeoutMs(), cs.password()));
            result = new ApplyResult(ZkException.Code.OK, null, List.of(), List.of());
        } else if (txn instanceof Txn.CloseSession close) {
            closeSession(header, close, triggers);
            result = new ApplyResult(ZkException.Code.OK, null, List.of(), triggers);
        } else if (txn instanceof Txn.NewEpoch) {
            result = new ApplyResult(ZkException.Code.OK, null, List.of(), List.of()); // only lastZxid moves
        } else if (txn instanceof Txn.Membership m) {
            if (memberships.isEmpty() || memberships.get(memberships.size() - 1).zxid() < header.zxid()) {
                List<AppliedMembership> next = new ArrayList<>(memberships);
                next.add(new AppliedMembership(header.zxid(), m, header.time()));
                memberships = List.copyOf(next.subList(Math.max(0, next.size() - MEMBERSHIPS_KEPT), next.size()));
            }
            // ZooKeeper's /zookeeper/config, shown over a tree without a /zookeeper of its own, now shows this record
            result = new ApplyResult(ZkException.Code.OK, null, List.of(), contains(SystemNodes.ZOOKEEPER) ? List.of()
                    : List.of(new WatchTrigger(SystemNodes.CONFIG, WatchedEvent.Type.NODE_DATA_CHANGED,
                    header.zxid())));
        } else if (txn instanceof Txn.Error e) {
            List<OpResult> results = new ArrayList<>(e.multiCodes().size());
            for (ZkException.Code c : e.multiCodes()) {
                results.add(new OpResult.ErrorResult(c));
            }
            result = new ApplyResult(e.code(), e.path(), results, List.of());
        } else {
            result = new ApplyResult(ZkException.Code.OK, null, List.of(applyOp(header, txn, triggers)), triggers);
        }
        if (header.xid() != TxnHeader.NO_XID && !(txn instanceof Txn.CloseSession)
                && !(txn instanceof Txn.CreateSession) && sessions.containsKey(header.sessionId())) {
            SessionWrites w = writes.computeIfAbsent(header.sessionId(), k -> new SessionWrites());
            w.record(new SavedReply(header.xid(), header.zxid(), result.code(), result.path(), result.results()));
            w.acknowledge(header.xid(), header.acked());
        }
        if (header.zxid() > lastZxid) {
            lastZxid = header.zxid();
        }
        if (header.time() > lastTxnTime) {
            lastTxnTime = header.time();
        }
        return result;
    }

    private OpResult applyOp(TxnHeader h, Txn op, List<WatchTrigger> triggers) {
        if (op instanceof Txn.CreateNode c) {
            return create(h, c, triggers);
        } else if (op instanceof Txn.DeleteNode d) {
            delete(h.zxid(), d.path(), triggers);
            return new OpResult.DeleteResult();
        } else if (op instanceof Txn.SetData s) {
            return setData(h, s, triggers);
        } else if (op instanceof Txn.Check) {
            return new OpResult.CheckResult();
        } else if (op instanceof Txn.SetAcl sa) {
            return setAcl(h, sa);
        }
        throw new IllegalArgumentException("not a node op: " + op);
    }

    private OpResult create(TxnHeader h, Txn.CreateNode c, List<WatchTrigger> triggers) {
        String path = c.path();
        String parentPath = parentOf(path);
        int nameFrom = path.lastIndexOf('/') + 1;
        Node parent = lookup(parentPath);
        if (parent == null || parent.czxid > h.zxid()) {
            // replay only: the parent is gone, or is a later incarnation; a later txn deletes this node again
            return new OpResult.ErrorResult(ZkException.Code.NO_NODE);
        }
        Node node;
        synchronized (parent) {
            node = parent.child(path, nameFrom, path.length());
        }
        if (node == null) {
            node = Node.create(NodeBytes.pack(path, nameFrom, path.length(), c.data()), h.zxid(), h.time(),
                    c.ephemeralOwner(), c.container(), c.ttlMs());
            node.acl = acls.intern(c.acls());
            nodeCount++;
            if (c.ephemeralOwner() != 0) {
                ephemerals.computeIfAbsent(c.ephemeralOwner(), k -> ConcurrentHashMap.newKeySet()).add(path);
            }
            if (c.container()) {
                containers.add(path);
            }
            if (c.ttlMs() > 0) {
                ttlNodes.add(path);
            }
        }
        synchronized (parent) {
            ChildSet kids = parent.kids();
            kids.add(node);
            if (c.parentCversion() > kids.cversion) {
                kids.cversion = c.parentCversion();
                kids.pzxid = h.zxid();
            }
        }
        triggers.add(new WatchTrigger(path, WatchedEvent.Type.NODE_CREATED, h.zxid(), node.acls()));
        triggers.add(new WatchTrigger(parentPath, WatchedEvent.Type.NODE_CHILDREN_CHANGED, h.zxid(), parent.acls()));
        return new OpResult.CreateResult(path, node.stat());
    }

    private void delete(long zxid, String path, List<WatchTrigger> triggers) {
        if ("/".equals(path)) {
            throw new IllegalArgumentException("cannot delete /");
        }
        String parentPath = parentOf(path);
        Node current = lookup(path);
        if (current != null && current.czxid > zxid) {
            // replay only: a later incarnation, created after this delete (its parent's pzxid is past it already)
            triggers.add(new WatchTrigger(path, WatchedEvent.Type.NODE_DELETED, zxid));
            triggers.add(new WatchTrigger(parentPath, WatchedEvent.Type.NODE_CHILDREN_CHANGED, zxid));
            return;
        }
        Node parent = lookup(parentPath);
        boolean unlinked = false;
        if (parent != null) {
            synchronized (parent) {
                ChildSet kids = parent.kids();
                unlinked = kids.remove(path, path.lastIndexOf('/') + 1, path.length());
                if (zxid > kids.pzxid) {
                    kids.pzxid = zxid;
                }
            }
        }
        Node node = current != null && (unlinked || orphans.remove(path, current)) ? current : null;
        List<Acl> nodeAcl = node == null ? null : node.acls();
        List<Acl> parentAcl = parent == null ? null : parent.acls();
        if (node != null) {
            nodeCount--;
            AclTable.Entry released;
            synchronized (node) {
                released = node.acl;
                node.acl = null; // deleted: late readers treat it as missing
            }
            acls.release(released);
            long owner = node.ephemeralOwner();
            if (owner != 0) {
                Set<String> owned = ephemerals.get(owner);
                if (owned != null) {
                    owned.remove(path);
                    if (owned.isEmpty()) {
                        ephemerals.remove(owner);
                    }
                }
            }
            if (node.container()) {
                containers.remove(path);
            }
            if (node.ttlMs() > 0) {
                ttlNodes.remove(path);
            }
        }
        triggers.add(new WatchTrigger(path, WatchedEvent.Type.NODE_DELETED, zxid, nodeAcl));
        triggers.add(new WatchTrigger(parentPath, WatchedEvent.Type.NODE_CHILDREN_CHANGED, zxid, parentAcl));
    }

    private OpResult setData(TxnHeader h, Txn.SetData s, List<WatchTrigger> triggers) {
        Node node = lookup(s.path());
        if (node == null || node.czxid > h.zxid()) {
            // replay only: deleted later anyway, or a later incarnation that this change never touched
            return new OpResult.ErrorResult(ZkException.Code.NO_NODE);
        }
        Stat stat;
        synchronized (node) {
            node.setData(s.data());
            node.version = s.version();
            node.mzxid = h.zxid();
            node.mtime = h.time();
            stat = node.statLocked();
        }
        triggers.add(new WatchTrigger(s.path(), WatchedEvent.Type.NODE_DATA_CHANGED, h.zxid(), node.acls()));
        return new OpResult.SetDataResult(stat);
    }

    private OpResult setAcl(TxnHeader h, Txn.SetAcl sa) {
        Node node = lookup(sa.path());
        if (node == null || node.czxid > h.zxid()) {
            return new OpResult.ErrorResult(ZkException.Code.NO_NODE); // replay only, as for setData
        }
        AclTable.Entry entry = acls.intern(sa.acls(), sa.aversion());
        AclTable.Entry old;
        Stat stat;
        synchronized (node) {
            old = node.acl;
            node.acl = entry;
            stat = node.statLocked();
        }
        acls.release(old);
        return new OpResult.SetDataResult(stat); // carries the new Stat to the reply
    }

    private void closeSession(TxnHeader h, Txn.CloseSession close, List<WatchTrigger> triggers) {
        long id = close.sessionId();
        sessions.remove(id);
        writes.remove(id);
        Set<String> owned = ephemerals.get(id);
        if (owned == null) {
            return;
        }
        for (String path : new TreeSet<>(owned)) {
            Node n = lookup(path);
            if (n != null && n.ephemeralOwner() == id && n.czxid < h.zxid()) { // not a later session's (ids reused)
                delete(h.zxid(), path, triggers);
            }
        }
    }

    static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    // ---- snapshots -----------------------------------------------------------------------------------------------

    /**
     * Writes the tree (fuzzy: applies may run concurrently) and the committed sessions. The zxid written is the last
     * applied zxid when the call starts; replay every txn after it on the restored tree.
     */
    public void writeSnapshot(DataOutput out) throws IOException {
        writeSnapshot(out, null);
    }

    /** As {@link #writeSnapshot(DataOutput)}; {@code afterEachNode} (tests) runs after every node written. */
    void writeSnapshot(DataOutput out, Runnable afterEachNode) throws IOException {
        out.writeInt(SNAPSHOT_MAGIC);
        out.writeInt(SNAPSHOT_VERSION);
        long zxid = lastZxid;
        // read now, with the zxid: applies go on while the tree is written (a joiner replaying a long history may
        // apply many membership records meanwhile, more than the tree keeps)
        AppliedMembership membership = membershipAt(zxid);
        out.writeLong(zxid);
        for (SessionInfo s : sessions.values()) {
            out.writeByte(1);
            out.writeLong(s.sessionId());
            out.writeInt(s.timeoutMs());
            TxnCodec.writeBytes(out, s.password());
        }
        out.writeByte(0);
        // Post-order: a node is written after its children, so its pzxid and cversion are read after every child
        // the snapshot lacks was deleted (or before it was created, and then replay creates it). A child deleted by
        // a CloseSession during the write is therefore either in the snapshot (replaying the close deletes it) or
        // its deletion is already in the parent's pzxid: the close names no paths, so replay cannot repair the
        // parent of a child it cannot see.
        AclsWritten written = new AclsWritten();
        ArrayDeque<Visit> stack = new ArrayDeque<>();
        stack.push(new Visit(null, root, false));
        while (!stack.isEmpty()) {
            Visit v = stack.pop();
            if (!v.childrenPushed()) {
                // the name is read here rather than when the parent pushed the node: its bytes are then read once,
                // just before they are written (a parent with many children pushed them all long before)
                String path = v.at() == null ? "/" : v.at() + v.node().name();
                stack.push(new Visit(path, v.node(), true));
                List<Node> kids;
                synchronized (v.node()) {
                    ChildSet c = v.node().children();
                    kids = c == null ? List.of() : c.nodes();
                }
                String prefix = "/".equals(path) ? "/" : path + "/";
                for (Node kid : kids) {
                    stack.push(new Visit(prefix, kid, false));
                }
            } else if (writeNode(out, v.at(), v.node(), written) && afterEachNode != null) {
                afterEachNode.run();
            }
        }
        out.writeByte(0);
        // the ACL table: every ACL a written node refers to, once (collected while writing: an entry released
        // meanwhile is still here for the nodes that were written with it)
        out.writeInt(written.byId.size());
        for (AclTable.Entry e : written.byId.values()) {
            out.writeLong(e.id);
            TxnCodec.writeAcls(out, e.acls);
        }
        // the session writes (version 3), read last: every write whose effect a written node shows is in it
        writeSessionWrites(out);
        // optional trailer (readers before it stop at the marker above): the newest txn time, read now, so it is
        // not older than any txn the (fuzzy) snapshot holds
        out.writeByte(TRAILER_TXN_TIME);
        out.writeLong(lastTxnTime);
        // optional trailer: the membership in force at the snapshot's zxid, if the ensemble ever changed shape
        AppliedMembership m = membership;
        if (m != null) {
            out.writeByte(TRAILER_MEMBERSHIP);
            out.writeLong(m.zxid());
            TxnCodec.writeMembers(out, m.membership());
        }
    }

    /**
     * The membership record in force at {@code zxid} (the newest applied at or below it), null if none was ever
     * applied; {@link IllegalStateException} if more changes than are kept were applied after {@code zxid}.
     */
    private AppliedMembership membershipAt(long zxid) {
        List<AppliedMembership> all = memberships;
        for (int i = all.size() - 1; i >= 0; i--) {
            if (all.get(i).zxid() <= zxid) {
                return all.get(i);
            }
        }
        if (all.size() == MEMBERSHIPS_KEPT) {
            throw new IllegalStateException("more than " + MEMBERSHIPS_KEPT + " membership changes applied since "
                    + Long.toHexString(zxid) + " when the snapshot started; the next snapshot will do");
        }
        return null;
    }

    /** The zxid of {@link #membership()}, null if none. */
    private Long membershipZxid() {
        AppliedMembership m = membership();
        return m == null ? null : m.zxid();
    }

    /** The newest membership record applied (or read from a snapshot), null if the ensemble never changed shape. */
    public AppliedMembership membership() {
        List<AppliedMembership> all = memberships;
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    /** A node's kind byte in a snapshot (0 plain, 1 container, as the boolean it was): a TTL node, its TTL follows. */
    private static final int NODE_KIND_TTL = 2;

    /** Snapshot trailer: the newest txn time follows. */
    private static final int TRAILER_TXN_TIME = 1;
    /** Snapshot trailer (after the txn time): the membership record in force, its zxid then its members. */
    private static final int TRAILER_MEMBERSHIP = 2;

    private void writeSessionWrites(DataOutput out) throws IOException {
        for (Map.Entry<Long, SessionWrites> e : new TreeMap<>(writes).entrySet()) {
            SessionWrites.State state = e.getValue().state(); // one read: applies go on meanwhile
            List<SavedReply> replies = state.replies();
            out.writeByte(1);
            out.writeLong(e.getKey());
            out.writeInt(state.highestXid());
            out.writeInt(state.acked());
            out.writeInt(replies.size());
            for (SavedReply r : replies) {
                SavedReplyCodec.write(out, r);
            }
        }
        out.writeByte(0);
    }

    private void readSessionWrites(DataInput in) throws IOException {
        while (readMarker(in)) {
            long id = in.readLong();
            int highest = in.readInt();
            int acked = in.readInt();
            int n = in.readInt();
            if (n < 0 || n > SessionWrites.WINDOW) {
                throw new IOException("corrupt snapshot: " + n + " saved replies for session 0x" + Long.toHexString(id));
            }
            List<SavedReply> replies = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                replies.add(SavedReplyCodec.read(in));
            }
            SessionWrites w = new SessionWrites();
            w.restore(highest, acked, replies);
            writes.put(id, w);
        }
    }

    /**
     * A node to visit: first ({@code childrenPushed} false) {@code at} is its parent's path with a trailing slash
     * (null for the root), then its own path.
     */
    private record Visit(String at, Node node, boolean childrenPushed) {
    }

    /** The ACLs a snapshot's nodes refer to, by id, in the order first met. */
    private static final class AclsWritten {
        final Map<Long, AclTable.Entry> byId = new java.util.LinkedHashMap<>();
        /** The last entry added: siblings mostly share their ACL, so most nodes skip the map. */
        private AclTable.Entry last;

        void add(AclTable.Entry e) {
            if (e != last) {
                byId.putIfAbsent(e.id, e);
                last = e;
            }
        }
    }

    /** Writes the node as it is now; false (nothing written) if it was deleted meanwhile. */
    private static boolean writeNode(DataOutput out, String path, Node n, AclsWritten written)
            throws IOException {
        byte[] data;
        long czxid, mzxid, pzxid, ctime, mtime, owner, ttl;
        int version, cversion, aversion;
        boolean container;
        AclTable.Entry acl;
        synchronized (n) {
            if (n.deleted()) {
                return false;
            }
            data = n.data();
            czxid = n.czxid;
            mzxid = n.mzxid;
            pzxid = n.pzxid();
            ctime = n.ctime;
            mtime = n.mtime;
            owner = n.ephemeralOwner();
            version = n.version;
            cversion = n.cversion();
            container = n.container();
            ttl = n.ttlMs();
            aversion = n.aversion();
            acl = n.acl;
        }
        written.add(acl);
        out.writeByte(1);
        TxnCodec.writeString(out, path);
        out.writeLong(czxid);
        out.writeLong(mzxid);
        out.writeLong(pzxid);
        out.writeLong(ctime);
        out.writeLong(mtime);
        out.writeInt(version);
        out.writeInt(cversion);
        out.writeLong(owner);
        if (ttl > 0) {
            out.writeByte(NODE_KIND_TTL);
            out.writeLong(ttl);
        } else {
            out.writeBoolean(container);
        }
        TxnCodec.writeBytes(out, data);
        out.writeInt(aversion);
        out.writeLong(acl.id);
        return true;
    }

    /**
     * Reads a snapshot written by {@link #writeSnapshot(DataOutput)}. Throws {@link IOException} on a malformed
     * stream (bad magic or version, truncated input).
     */
    public static DataTree readSnapshot(DataInput in) throws IOException {
        if (in.readInt() != SNAPSHOT_MAGIC) {
            throw new IOException("not a zkr snapshot (bad magic)");
        }
        int version = in.readInt();
        if (version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_NO_WRITES
                && version != SNAPSHOT_VERSION_NO_ACLS) {
            throw new IOException("unsupported snapshot version " + version);
        }
        boolean withAcls = version >= SNAPSHOT_VERSION_NO_WRITES;
        // each node first holds a placeholder entry (ACL id and aversion, no ACL) shared by the nodes of the same
        // pair; the table at the end turns them into real entries
        Map<PendingAcl, AclTable.Entry> placeholders = new HashMap<>();
        DataTree tree = new DataTree();
        Node emptyRoot = tree.root;
        TreeBuilder builder = new TreeBuilder(emptyRoot);
        tree.lastZxid = in.readLong();
        while (readMarker(in)) {
            long id = in.readLong();
            int timeout = in.readInt();
            byte[] password = TxnCodec.readBytes(in);
            tree.sessions.put(id, new SessionInfo(id, timeout, password));
        }
        while (readMarker(in)) {
            String path = TxnCodec.readString(in);
            if (path == null || path.isEmpty() || path.charAt(0) != '/') {
                throw new IOException("bad node path in snapshot: " + path);
            }
            long czxid = in.readLong();
            long mzxid = in.readLong();
            long pzxid = in.readLong();
            long ctime = in.readLong();
            long mtime = in.readLong();
            int dataVersion = in.readInt();
            int cversion = in.readInt();
            long owner = in.readLong();
            int kind = in.readUnsignedByte();
            if (kind > NODE_KIND_TTL) {
                throw new IOException("corrupt snapshot: bad node kind " + kind + " for " + path);
            }
            long ttl = kind == NODE_KIND_TTL ? in.readLong() : 0;
            if (kind == NODE_KIND_TTL && (ttl <= 0 || owner != 0)) {
                throw new IOException("corrupt snapshot: bad TTL node " + path);
            }
            byte[] data = TxnCodec.readBytes(in);
            Node n = Node.create(NodeBytes.pack(path, path.lastIndexOf('/') + 1, path.length(), data), czxid,
                    ctime, owner, kind == 1, ttl);
            if (withAcls) {
                int aversion = in.readInt();
                long aclId = in.readLong();
                n.acl = placeholders.computeIfAbsent(new PendingAcl(aclId, aversion),
                        k -> new AclTable.Entry(k.id(), null, k.aversion()));
            } else {
                n.acl = tree.acls.intern(Acls.OPEN_UNSAFE);
            }
            n.mzxid = mzxid;
            n.mtime = mtime;
            n.version = dataVersion;
            if (pzxid != czxid || cversion != 0) {
                ChildSet kids = n.kids();
                kids.pzxid = pzxid;
                kids.cversion = cversion;
            }
            builder.add(path, n);
        }
        tree.orphans.putAll(builder.finish());
        if (builder.duplicate() != null) {
            throw new IOException("corrupt snapshot: node " + builder.duplicate() + " twice");
        }
        tree.root = builder.root();
        tree.nodeCount = builder.count();
        if (tree.root != emptyRoot) {
            tree.acls.release(emptyRoot.acl);
        }
        Map<Long, List<Acl>> table = new HashMap<>();
        if (withAcls) {
            int n = in.readInt();
            if (n < 0) {
                throw new IOException("corrupt snapshot: bad ACL table size " + n);
            }
            for (int i = 0; i < n; i++) {
                long id = in.readLong();
                table.put(id, TxnCodec.readAcls(in));
            }
        }
        if (withAcls) {
            String[] unknown = {null};
            tree.forEachNode((path, n) -> {
                if (n.acl.acls != null) {
                    return; // the empty tree's root, kept when the snapshot had none
                }
                List<Acl> acl = table.get(n.acl.id);
                if (acl == null) {
                    unknown[0] = unknown[0] != null ? unknown[0] : "unknown ACL id " + n.acl.id + " for " + path;
                    return;
                }
                n.acl = tree.acls.intern(acl, n.acl.aversion);
            });
            if (unknown[0] != null) {
                throw new IOException("corrupt snapshot: " + unknown[0]);
            }
        }
        if (version >= SNAPSHOT_VERSION) {
            tree.readSessionWrites(in);
        }
        readTrailers(in, tree);
        tree.link();
        return tree;
    }

    /**
     * The optional trailers: the newest txn time (0 when a snapshot was written without it), then the membership in
     * force (absent while the ensemble never changed shape).
     */
    private static void readTrailers(DataInput in, DataTree tree) throws IOException {
        int kind;
        while ((kind = trailerKind(in)) >= 0) {
            if (kind == TRAILER_TXN_TIME) {
                tree.lastTxnTime = in.readLong();
            } else if (kind == TRAILER_MEMBERSHIP) {
                long zxid = in.readLong();
                tree.memberships = List.of(new AppliedMembership(zxid, TxnCodec.readMembers(in)));
            } else {
                throw new IOException("corrupt snapshot: unknown trailer " + kind);
            }
        }
    }

    private static int trailerKind(DataInput in) throws IOException {
        try {
            return in.readUnsignedByte();
        } catch (java.io.EOFException e) {
            return -1;
        }
    }

    /** A node's ACL id and aversion while a snapshot is read, before its ACL table. */
    private record PendingAcl(long id, int aversion) {
    }

    private static boolean readMarker(DataInput in) throws IOException {
        byte b = in.readByte();
        if (b != 0 && b != 1) {
            throw new IOException("corrupt snapshot: bad record marker " + b);
        }
        return b == 1;
    }

    /** Rebuilds the ephemeral, container and TTL indexes from the nodes (children are linked already). */
    private void link() {
        forEachNode((path, n) -> {
            if (n.ephemeralOwner() != 0) {
                ephemerals.computeIfAbsent(n.ephemeralOwner(), k -> ConcurrentHashMap.newKeySet()).add(path);
            }
            if (n.container()) {
                containers.add(path);
            }
            if (n.ttlMs() > 0) {
                ttlNodes.add(path);
            }
        });
    }

    // ---- whole-tree images (import and export of other stores' data) ---------------------------------------------

    /**
     * A tree holding exactly these nodes and sessions, as if a snapshot taken at {@code lastZxid} had been read
     * (the ZooKeeper import builds its tree this way). Every node but the root needs its parent among the images.
     *
     * @throws IllegalArgumentException on a bad path, a missing parent, a duplicate, a negative cversion, or a TTL
     *                                  node with an owner or container flag
     */
    public static DataTree fromImages(long lastZxid, long lastTxnTime, Iterable<SessionInfo> sessionInfos,
                                      Iterable<NodeImage> images) {
        DataTree tree = new DataTree();
        Node emptyRoot = tree.root;
        TreeBuilder builder = new TreeBuilder(emptyRoot);
        tree.lastZxid = lastZxid;
        tree.lastTxnTime = lastTxnTime;
        for (SessionInfo s : sessionInfos) {
            tree.sessions.put(s.sessionId(), s);
        }
        for (NodeImage im : images) {
            String path = im.path();
            if (path == null || path.isEmpty() || path.charAt(0) != '/' || (path.length() > 1 && path.endsWith("/"))) {
                throw new IllegalArgumentException("bad node path: " + path);
            }
            if (im.ttlMs() < 0 || (im.ttlMs() > 0 && (im.ephemeralOwner() != 0 || im.container()))) {
                throw new IllegalArgumentException("bad TTL node " + path);
            }
            Node n = Node.create(NodeBytes.pack(path, path.lastIndexOf('/') + 1, path.length(), im.data()),
                    im.czxid(), im.ctime(), im.ephemeralOwner(), im.container(), im.ttlMs());
            n.mzxid = im.mzxid();
            n.mtime = im.mtime();
            n.version = im.version();
            if (im.cversion() < 0) {
                throw new IllegalArgumentException("negative cversion " + im.cversion() + " of " + path);
            }
            n.acl = tree.acls.intern(im.acls(), im.aversion());
            ChildSet kids = n.kids();
            kids.pzxid = im.pzxid();
            kids.cversion = im.cversion();
            builder.add(path, n);
        }
        Map<String, Node> orphans = builder.finish();
        if (builder.duplicate() != null) {
            throw new IllegalArgumentException("duplicate node " + builder.duplicate());
        }
        if (!orphans.isEmpty()) {
            throw new IllegalArgumentException("node " + new TreeSet<>(orphans.keySet()).first() + " has no parent");
        }
        tree.root = builder.root();
        tree.nodeCount = builder.count();
        if (tree.root != emptyRoot) {
            tree.acls.release(emptyRoot.acl);
        }
        tree.link();
        tree.forEachNode((path, n) -> n.dropDefaultKids()); // as a snapshot read leaves a node that never had a child
        return tree;
    }

    /**
     * Every node's image, parents before their children, from the tree as it is (call it on a tree nothing applies
     * to, e.g. one recovered from a data directory). The root comes first; system nodes zkr only shows are not in the
     * tree and not listed.
     */
    public void forEachImage(java.util.function.Consumer<NodeImage> action) {
        ArrayDeque<Map.Entry<String, Node>> stack = new ArrayDeque<>();
        stack.push(Map.entry("/", root));
        while (!stack.isEmpty()) {
            Map.Entry<String, Node> e = stack.pop();
            String path = e.getKey();
            Node n = e.getValue();
            NodeImage im;
            List<Node> kids;
            synchronized (n) {
                im = new NodeImage(path, n.data(), n.acls(), n.czxid, n.mzxid, n.pzxid(), n.ctime, n.mtime, n.version,
                        n.cversion(), n.aversion(), n.ephemeralOwner(), n.container(), n.ttlMs());
                kids = n.children() == null ? new ArrayList<>() : n.children().nodes();
            }
            action.accept(im);
            String prefix = "/".equals(path) ? "/" : path + "/";
            List<Map.Entry<String, Node>> named = new ArrayList<>(kids.size());
            for (Node k : kids) {
                named.add(Map.entry(prefix + k.name(), k));
            }
            named.sort(Map.Entry.<String, Node>comparingByKey().reversed());
            for (Map.Entry<String, Node> k : named) {
                stack.push(k);
            }
        }
    }

    // ---- snapshot install ----------------------------------------------------------------------------------------

    /**
     * Makes this tree the state {@code loaded} holds (a snapshot installed from the leader, docs/replication.md, SNAP
     * transfer), in place, so every stage keeps its reference to this tree: nodes, committed sessions, the ephemeral
     * and container indexes and the last zxid become {@code loaded}'s. Returns what changed, so the server can fire the
     * watches and update its session table. Apply thread only, between rounds and while no snapshot of this tree is
     * being written (a fuzzy snapshot would mix both trees); {@code loaded} must not be used afterwards (its nodes are
     * now this tree's). Readers never see a tree without a root.
     */
    public Replacement replaceWith(DataTree loaded) {
        if (loaded == this) {
            throw new IllegalArgumentException("a tree cannot replace itself");
        }
        long zxid = loaded.lastZxid;
        Replacement changes = changesTo(loaded, zxid);
        orphans.putAll(loaded.orphans);
        orphans.keySet().removeIf(path -> !loaded.orphans.containsKey(path));
        root = loaded.root;
        nodeCount = loaded.nodeCount;
        sessions.putAll(loaded.sessions);
        sessions.keySet().removeIf(id -> !loaded.sessions.containsKey(id));
        writes.putAll(loaded.writes);
        writes.keySet().removeIf(id -> !loaded.writes.containsKey(id));
        ephemerals.putAll(loaded.ephemerals);
        ephemerals.keySet().removeIf(owner -> !loaded.ephemerals.containsKey(owner));
        containers.addAll(loaded.containers);
        containers.retainAll(loaded.containers);
        ttlNodes.addAll(loaded.ttlNodes);
        ttlNodes.retainAll(loaded.ttlNodes);
        acls.replaceWith(loaded.acls);
        memberships = loaded.memberships;
        lastZxid = zxid;
        lastTxnTime = Math.max(lastTxnTime, loaded.lastTxnTime);
        return changes;
    }

    /** The watch triggers and session changes that lead from this tree to {@code next}. */
    private Replacement changesTo(DataTree next, long zxid) {
        TreeSet<String> deleted = new TreeSet<>(Collections.reverseOrder());
        TreeSet<String> created = new TreeSet<>();
        TreeSet<String> dataChanged = new TreeSet<>();
        TreeSet<String> childrenChanged = new TreeSet<>();
        Map<String, Node> nodes = nodesByPath();
        Map<String, Node> nextNodes = next.nodesByPath();
        for (Map.Entry<String, Node> e : nodes.entrySet()) {
            String path = e.getKey();
            Node before = e.getValue();
            Node after = nextNodes.get(path);
            if (after == null || after.czxid != before.czxid) {
                deleted.add(path); // a recreated node is a deletion and a creation
                if (after != null) {
                    created.add(path);
                }
            } else {
                Stat a;
                Stat b;
                synchronized (before) {
                    b = before.statLocked();
                }
                synchronized (after) {
                    a = after.statLocked();
                }
                if (a.mzxid() != b.mzxid() || a.version() != b.version()) {
                    dataChanged.add(path);
                }
                if (a.pzxid() != b.pzxid() || a.cversion() != b.cversion()) {
                    childrenChanged.add(path);
                }
            }
        }
        for (String path : nextNodes.keySet()) {
            if (!nodes.containsKey(path)) {
                created.add(path);
            }
        }
        for (String path : deleted) {
            childrenChanged.add(parentOf(path));
        }
        for (String path : created) {
            childrenChanged.add(parentOf(path));
        }
        childrenChanged.removeIf(path -> !nextNodes.containsKey(path)); // a deleted node's watchers hear NODE_DELETED
        List<WatchTrigger> triggers = new ArrayList<>();
        deleted.forEach(p -> triggers.add(new WatchTrigger(p, WatchedEvent.Type.NODE_DELETED, zxid)));
        created.forEach(p -> triggers.add(new WatchTrigger(p, WatchedEvent.Type.NODE_CREATED, zxid)));
        dataChanged.forEach(p -> triggers.add(new WatchTrigger(p, WatchedEvent.Type.NODE_DATA_CHANGED, zxid)));
        if (!java.util.Objects.equals(membershipZxid(), next.membershipZxid())
                && !next.contains(SystemNodes.ZOOKEEPER)) { // the /zookeeper/config shown over the tree changed
            triggers.add(new WatchTrigger(SystemNodes.CONFIG, WatchedEvent.Type.NODE_DATA_CHANGED, zxid));
        }
        childrenChanged.forEach(p -> triggers.add(new WatchTrigger(p, WatchedEvent.Type.NODE_CHILDREN_CHANGED,
                zxid)));
        List<SessionInfo> added = new ArrayList<>();
        new TreeMap<>(next.sessions).forEach((id, info) -> {
            if (!info.equals(sessions.get(id))) {
                added.add(info);
            }
        });
        List<Long> removed = new ArrayList<>(new TreeSet<>(sessions.keySet()));
        removed.removeIf(next.sessions::containsKey);
        return new Replacement(triggers, added, removed);
    }

    /** Test-only (a simulator mutation): forgets every session's applied writes, as a buggy load would. */
    void forgetSessionWrites() {
        writes.clear();
    }

    // ---- diagnostics ---------------------------------------------------------------------------------------------

    /**
     * A canonical text dump of the whole state (nodes sorted by path with stat, data and children; sessions sorted),
     * for comparing trees in tests and tools. Not for large trees.
     */
    public String canonicalDump() {
        StringBuilder sb = new StringBuilder();
        sb.append("lastZxid=").append(lastZxid).append('\n');
        Map<String, Node> sorted = new TreeMap<>(nodesByPath());
        for (Map.Entry<String, Node> e : sorted.entrySet()) {
            Node n = e.getValue();
            synchronized (n) {
                List<String> names = n.children() == null ? new ArrayList<>() : n.children().names();
                Collections.sort(names);
                sb.append(e.getKey()).append(' ').append(n.statLocked()).append(" container=").append(n.container())
                        .append(n.ttlMs() > 0 ? " ttl=" + n.ttlMs() : "")
                        .append(" acl=").append(n.acls())
                        .append(" data=").append(n.data() == null ? "null"
                                : java.util.HexFormat.of().formatHex(n.data()))
                        .append(" children=").append(names).append('\n');
            }
        }
        new TreeMap<>(sessions).values().forEach(s -> sb.append(s).append(' ')
                .append(java.util.HexFormat.of().formatHex(s.password())).append('\n'));
        Map<Long, Set<String>> eph = new TreeMap<>();
        ephemerals.forEach((k, v) -> eph.put(k, new TreeSet<>(v)));
        sb.append("ephemerals=").append(eph).append('\n');
        sb.append("containers=").append(new TreeSet<>(containers)).append('\n');
        new TreeMap<>(writes).forEach((id, w) -> {
            sb.append("writes 0x").append(Long.toHexString(id)).append(" highest=").append(w.highestXid())
                    .append(" acked=").append(w.acked());
            for (SavedReply r : w.replies()) {
                sb.append(' ').append(r.xid()).append('@').append(Long.toHexString(r.zxid())).append(':')
                        .append(r.code()).append(r.path() == null ? "" : " " + r.path()).append(r.results());
            }
            sb.append('\n');
        });
        if (!ttlNodes.isEmpty()) {
            sb.append("ttlNodes=").append(new TreeSet<>(ttlNodes)).append('\n');
        }
        return sb.toString();
    }

    /**
     * Internal consistency check for tests: every node is reached from the root under its own name and found by
     * its path; the node count, the ephemeral, container and TTL indexes and the ACL reference counts match the
     * nodes; each parent's pzxid is at least every child's czxid and its count of child creations at least its
     * number of children (what replay over a fuzzy snapshot must restore, as far as one state can show it).
     */
    void checkInvariants() {
        if (!orphans.isEmpty()) {
            throw new IllegalStateException("orphans " + new TreeSet<>(orphans.keySet()));
        }
        Map<Long, Set<String>> expectedEphemerals = new HashMap<>();
        Set<String> expectedContainers = new HashSet<>();
        Set<String> expectedTtlNodes = new HashSet<>();
        Map<List<Acl>, Long> expectedRefs = new HashMap<>();
        int[] count = {0};
        forEachNode((path, n) -> {
            count[0]++;
            if (n.deleted()) {
                throw new IllegalStateException("deleted node still linked: " + path);
            }
            if (lookup(path) != n) {
                throw new IllegalStateException("lookup of " + path + " does not find its node");
            }
            if (!"/".equals(path)) {
                Node p = lookup(parentOf(path));
                if (!dev.zkr.client.ZkPaths.name(path).equals(n.name())) {
                    throw new IllegalStateException("name of " + path + " is " + n.name());
                }
                if (p.pzxid() < n.czxid) {
                    throw new IllegalStateException("pzxid of " + parentOf(path) + " " + p.pzxid() + " < czxid of "
                            + path + " " + n.czxid);
                }
            }
            List<String> names = n.childNames();
            if (new HashSet<>(names).size() != names.size()) {
                throw new IllegalStateException("children of " + path + " repeat a name: " + names);
            }
            if (n.cversion() < n.numChildren()) {
                throw new IllegalStateException("cversion of " + path + " " + n.cversion() + " < "
                        + n.numChildren() + " children");
            }
            if (n.ephemeralOwner() != 0) {
                expectedEphemerals.computeIfAbsent(n.ephemeralOwner(), k -> new HashSet<>()).add(path);
            }
            if (n.container()) {
                expectedContainers.add(path);
            }
            if (n.ttlMs() > 0) {
                expectedTtlNodes.add(path);
            }
            expectedRefs.merge(n.acls(), 1L, Long::sum);
        });
        if (count[0] != nodeCount) {
            throw new IllegalStateException("node count " + nodeCount + " != " + count[0] + " nodes in the tree");
        }
        Map<Long, Set<String>> actualEphemerals = new HashMap<>();
        ephemerals.forEach((owner, paths) -> actualEphemerals.put(owner, new HashSet<>(paths)));
        if (!actualEphemerals.equals(expectedEphemerals)) {
            throw new IllegalStateException("ephemeral index " + actualEphemerals + " != " + expectedEphemerals);
        }
        if (!containers.equals(expectedContainers)) {
            throw new IllegalStateException("container index " + containers + " != " + expectedContainers);
        }
        if (!ttlNodes.equals(expectedTtlNodes)) {
            throw new IllegalStateException("TTL index " + ttlNodes + " != " + expectedTtlNodes);
        }
        if (!acls.refCounts().equals(expectedRefs)) {
            throw new IllegalStateException("ACL reference counts " + acls.refCounts() + " != " + expectedRefs);
        }
    }
}
