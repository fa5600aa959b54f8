package dev.zkr.server.round;

import dev.zkr.auth.AuthAttempts;
import dev.zkr.server.ProblemLog;
import dev.zkr.server.ZkServer;
import dev.zkr.auth.AuthProvider;
import dev.zkr.auth.Authorizer;
import dev.zkr.client.Acl;
import dev.zkr.client.Children;
import dev.zkr.client.ClientInfo;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Id;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.Perms;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.SystemNodes;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;

import java.util.Arrays;
import java.util.List;

/**
 * Serves reads and watch management from the applied tree (inside a round, so the tree cannot change between
 * the read and the watch registration) and queues the reply on the connection.
 */
final class ReadStage {

    private final DataTree tree;
    private final WatchTable watches;
    /** The problem-log kind of refused authentications (rate limited: a guesser cannot flood the log). */
    static final String AUTH_FAILURES = "authentication failures";
    private final ProblemLog problems = ProblemLog.server(org.slf4j.LoggerFactory.getLogger(ZkServer.class));

    private final ApplyStage apply;
    private final Authorizer authorizer;
    private final ReadAccess access;
    /** ZooKeeper's /zookeeper nodes, shown over the tree while it has no /zookeeper of its own. */
    private final SystemNodes system;
    /** The configured member lines as a membership, or null for a standalone server. */
    private final dev.zkr.tree.Txn.Membership configured;

    ReadStage(DataTree tree, WatchTable watches, ApplyStage apply) {
        this(tree, watches, apply, Authorizer.defaults());
    }

    ReadStage(DataTree tree, WatchTable watches, ApplyStage apply, Authorizer authorizer) {
        this(tree, watches, apply, authorizer, SystemNodes.standalone());
    }

    ReadStage(DataTree tree, WatchTable watches, ApplyStage apply, Authorizer authorizer, SystemNodes system) {
        this(tree, watches, apply, authorizer, system, null);
    }

    /** {@code configured}: the member lines, the membership while the ensemble never changed shape (null: standalone). */
    ReadStage(DataTree tree, WatchTable watches, ApplyStage apply, Authorizer authorizer, SystemNodes system,
              dev.zkr.tree.Txn.Membership configured) {
        this.configured = configured;
        this.tree = tree;
        this.watches = watches;
        this.apply = apply;
        this.authorizer = authorizer;
        this.access = new ReadAccess(tree, authorizer);
        this.system = system;
    }

    /** As ZooKeeper's FinalRequestProcessor: checked after the node was found, before a watch is left. */
    private boolean mayRead(Connection c, String path) {
        return access.mayRead(path, c.authIds);
    }

    void serve(Connection c, Message.Request r) {
        Message.Reply reply;
        try {
            reply = read(c, r);
        } catch (InvalidPath e) {
            reply = Replies.error(r.xid(), tree.lastZxid(), Prepared.Failed.of(ZkException.Code.INVALID_PATH, e.path,
                    null));
        }
        c.reply(reply);
    }

    private Message.Reply read(Connection c, Message.Request r) {
        if (system != null && system.shownOver(tree)) {
            Message.Reply reply = readSystem(c, r);
            return reply != null ? reply : withZooKeeperInRoot(r, readTree(c, r));
        }
        return readTree(c, r);
    }

    /**
     * A read of one of ZooKeeper's system nodes ({@link SystemNodes}: readable by anyone; only /zookeeper/config
     * changes, when a membership record is applied, which fires its data watches), or null for any other read.
     */
    private Message.Reply readSystem(Connection c, Message.Request r) {
        long zxid = tree.lastZxid();
        int xid = r.xid();
        if (r instanceof Message.GetDataRequest g && SystemNodes.isSystem(g.path())) {
            if (g.watch()) {
                watches.addDataWatch(c.sessionId, g.path());
            }
            return Replies.ok(xid, zxid, new Message.DataBody(shown().data(g.path()), shown().stat(g.path())));
        } else if (r instanceof Message.ExistsRequest e && SystemNodes.isSystem(e.path())) {
            if (e.watch()) {
                watches.addDataWatch(c.sessionId, e.path());
            }
            return Replies.ok(xid, zxid, new Message.StatBody(shown().stat(e.path())));
        } else if (r instanceof Message.GetChildrenRequest g && SystemNodes.isSystem(g.path())) {
            if (g.watch()) {
                watches.addChildWatch(c.sessionId, g.path());
            }
            return Replies.ok(xid, zxid, new Message.ChildrenBody(shown().children(g.path()).toArray(new String[0]),
                    shown().stat(g.path())));
        } else if (r instanceof Message.GetAclRequest g && SystemNodes.isSystem(g.path())) {
            return Replies.ok(xid, zxid, new Message.AclBody(shown().acl(g.path()).toArray(new Acl[0]),
                    shown().stat(g.path())));
        } else if (r instanceof Message.GetAllChildrenNumberRequest g && SystemNodes.isSystem(g.path())) {
            return Replies.ok(xid, zxid, new Message.CountBody(shown().descendants(g.path())));
        }
        return null;
    }

    /** The system nodes as shown now: /zookeeper/config shows the membership the tree applied last, if any. */
    private SystemNodes shown() {
        return system.over(tree.membership());
    }

    /** A read of the root, as shown while the system nodes are: {@code zookeeper} among its children. */
    private static Message.Reply withZooKeeperInRoot(Message.Request r, Message.Reply reply) {
        if (reply.code() != ZkException.Code.OK.intValue() || reply.body() == null) {
            return reply;
        }
        String path = r instanceof Message.GetDataRequest g ? g.path() : r instanceof Message.ExistsRequest e
                ? e.path() : r instanceof Message.GetChildrenRequest g ? g.path() : r instanceof Message.GetAclRequest g
                ? g.path() : r instanceof Message.GetAllChildrenNumberRequest g ? g.path() : null;
        if (!"/".equals(path)) {
            return reply;
        }
        Message.Body body = reply.body();
        Message.Body shown;
        if (body instanceof Message.DataBody d) {
            shown = new Message.DataBody(d.data(), SystemNodes.root(d.stat()));
        } else if (body instanceof Message.StatBody st) {
            shown = new Message.StatBody(st.stat() == null ? null : SystemNodes.root(st.stat()));
        } else if (body instanceof Message.ChildrenBody ch) {
            String[] names = Arrays.copyOf(ch.names(), ch.names().length + 1);
            names[names.length - 1] = "zookeeper";
            shown = new Message.ChildrenBody(names, SystemNodes.root(ch.stat()));
        } else if (body instanceof Message.AclBody a) {
            shown = new Message.AclBody(a.acls(), SystemNodes.root(a.stat()));
        } else if (body instanceof Message.CountBody n) {
            shown = new Message.CountBody(n.count() + 3);
        } else {
            return reply;
        }
        return new Message.Reply(reply.xid(), reply.zxid(), reply.code(), shown, reply.message());
    }

    private Message.Reply readTree(Connection c, Message.Request r) {
        long sid = c.sessionId;
        long zxid = tree.lastZxid();
        int xid = r.xid();
        if (r instanceof Message.GetDataRequest g) {
            String path = valid(g.path());
            NodeData nd = tree.getData(path);
            if (nd == null) { // like ZooKeeper, no watch is left on a missing node
                return Replies.error(xid, zxid, ZkException.Code.NO_NODE, null);
            }
            if (!mayRead(c, path)) {
                return Replies.error(xid, zxid, ZkException.Code.NO_AUTH, null);
            }
            if (g.watch()) {
                watches.addDataWatch(sid, path);
            }
            return Replies.ok(xid, zxid, new Message.DataBody(nd.data(), nd.stat()));
        } else if (r instanceof Message.ExistsRequest e) {
            String path = valid(e.path());
            Stat stat = tree.exists(path);
            if (stat != null && !mayRead(c, path)) {
                // ZooKeeper 3.9 (FinalRequestProcessor): READ on an existing node, checked before the watch is set
                return Replies.error(xid, zxid, ZkException.Code.NO_AUTH, null);
            }
            if (e.watch()) {
                if (stat != null) {
                    watches.addDataWatch(sid, path);
                } else {
                    watches.addExistsWatch(sid, path);
                }
            }
            return Replies.ok(xid, zxid, new Message.StatBody(stat));
        } else if (r instanceof Message.GetChildrenRequest g) {
            String path = valid(g.path());
            Children ch = tree.getChildren(path);
            if (ch == null) {
                return Replies.error(xid, zxid, ZkException.Code.NO_NODE, null);
            }
            if (!mayRead(c, path)) {
                return Replies.error(xid, zxid, ZkException.Code.NO_AUTH, null);
            }
            if (g.watch()) {
                watches.addChildWatch(sid, path);
            }
            return Replies.ok(xid, zxid, new Message.ChildrenBody(ch.names().toArray(new String[0]), ch.stat()));
        } else if (r instanceof Message.GetAclRequest g) {
            String path = valid(g.path());
            NodeAcl acl = tree.getAcl(path);
            if (acl == null) {
                return Replies.error(xid, zxid, ZkException.Code.NO_NODE, null);
            }
            // ZooKeeper 3.9: READ or ADMIN may read the ACL; without ADMIN the digest hashes are masked
            if (!authorizer.allowed(acl.acls(), Perms.READ | Perms.ADMIN, c.authIds)) {
                return Replies.error(xid, zxid, ZkException.Code.NO_AUTH, null);
            }
            List<Acl> shown = authorizer.allowed(acl.acls(), Perms.ADMIN, c.authIds) ? acl.acls()
                    : Authorizer.masked(acl.acls());
            return Replies.ok(xid, zxid, new Message.AclBody(shown.toArray(new Acl[0]), acl.stat()));
        } else if (r instanceof Message.AuthRequest a) {
            return authenticate(c, a, zxid);
        } else if (r instanceof Message.PingRequest) {
            return Replies.ok(xid, zxid, null);
        } else if (r instanceof Message.AddWatchRequest a) {
            return addWatch(sid, xid, zxid, a.path(), a.mode(), false);
        } else if (r instanceof Message.AddWatchWithDataRequest a) {
            return addWatch(sid, xid, zxid, a.path(), a.mode(), true);
        } else if (r instanceof Message.RemoveWatchesRequest rw) {
            String path = valid(rw.path());
            if (rw.type() == null) {
                return Replies.error(xid, zxid, ZkException.Code.BAD_ARGUMENTS, "watcher type missing");
            }
            return watches.remove(sid, path, rw.type()) ? Replies.ok(xid, zxid, null)
                    : Replies.error(xid, zxid, ZkException.Code.NO_WATCHER, null);
        } else if (r instanceof Message.CheckWatchesRequest cw) {
            String path = valid(cw.path());
            if (cw.type() == null) {
                return Replies.error(xid, zxid, ZkException.Code.BAD_ARGUMENTS, "watcher type missing");
            }
            return watches.contains(sid, path, cw.type()) ? Replies.ok(xid, zxid, null)
                    : Replies.error(xid, zxid, ZkException.Code.NO_WATCHER, null);
        } else if (r instanceof Message.MultiReadRequest m) {
            return multiRead(c, m, zxid);
        } else if (r instanceof Message.GetEphemeralsRequest g) {
            // ZooKeeper's prefix is a plain string prefix, not validated as a path; the session's own nodes only
            return Replies.ok(xid, zxid, new Message.PathsBody(tree.ephemerals(sid, g.prefix())
                    .toArray(new String[0])));
        } else if (r instanceof Message.GetAllChildrenNumberRequest g) {
            String path = valid(g.path());
            if (tree.exists(path) == null) {
                return Replies.error(xid, zxid, ZkException.Code.NO_NODE, null);
            }
            if (!mayRead(c, path)) {
                return Replies.error(xid, zxid, ZkException.Code.NO_AUTH, null);
            }
            return Replies.ok(xid, zxid, new Message.CountBody(tree.allChildrenNumber(path)));
        } else if (r instanceof Message.WhoAmIRequest) {
            return Replies.ok(xid, zxid, new Message.ClientInfoBody(whoAmI(c)));
        } else if (r instanceof Message.GetMembersRequest) {
            return Replies.ok(xid, zxid, Replies.members(tree, configured));
        } else if (r instanceof Message.SetWatchesRequest s) {
            return setWatches(sid, zxid, new Message.SetWatchesWithDataRequest(xid, s.relativeZxid(), s.dataWatches(),
                    s.existWatches(), s.childWatches(), s.persistentWatches(), s.persistentRecursiveWatches(), null,
                    null));
        } else if (r instanceof Message.SetWatchesWithDataRequest s) {
            return setWatches(sid, zxid, s);
        }
        return Replies.error(xid, zxid, ZkException.Code.UNIMPLEMENTED, r.getClass().getSimpleName());
    }

    /** ZooKeeper's setWatches; a plain {@code SetWatchesRequest} comes here with no watches that send data. */
    private Message.Reply setWatches(long sid, long zxid, Message.SetWatchesWithDataRequest s) {
        apply.deliver(watches.setWatches(sid, s.relativeZxid(), tree, this::statShown, list(s.dataWatches()),
                list(s.existWatches()), list(s.childWatches()), list(s.persistentWatches()),
                list(s.persistentRecursiveWatches()), list(s.persistentWithData()),
                list(s.persistentRecursiveWithData())));
        return Replies.ok(s.xid(), zxid, null);
    }

    private Message.Reply addWatch(long sid, int xid, long zxid, String path, dev.zkr.client.AddWatchMode mode,
                                   boolean withData) {
        String valid = valid(path);
        if (mode == null) {
            return Replies.error(xid, zxid, ZkException.Code.BAD_ARGUMENTS, "watch mode missing");
        }
        if (withData) {
            watches.addPersistentWatchWithData(sid, valid, mode);
        } else {
            watches.addPersistentWatch(sid, valid, mode);
        }
        return Replies.ok(xid, zxid, null);
    }

    /**
     * ZooKeeper's multiRead: every op read from this one state of the tree, each failing alone with its code (no
     * node, no READ, an invalid path), no watch set. Anything but getData and getChildren fails the whole request.
     */
    private Message.Reply multiRead(Connection c, Message.MultiReadRequest m, long zxid) {
        if (m.ops() == null) {
            return Replies.error(m.xid(), zxid, ZkException.Code.BAD_ARGUMENTS, "multiRead without ops");
        }
        OpResult[] results = new OpResult[m.ops().length];
        for (int i = 0; i < results.length; i++) {
            Op op = m.ops()[i];
            if (op == null || !op.isRead()) {
                return Replies.error(m.xid(), zxid, ZkException.Code.BAD_ARGUMENTS,
                        "multiRead takes getData and getChildren only");
            }
            results[i] = readOp(c, op);
        }
        return Replies.ok(m.xid(), zxid, new Message.MultiBody(results));
    }

    private OpResult readOp(Connection c, Op op) {
        String path = op.path();
        if (path == null || !ZkPaths.isValid(path)) {
            return new OpResult.ErrorResult(ZkException.Code.INVALID_PATH);
        }
        if (system != null && system.shownOver(tree)) {
            if (SystemNodes.isSystem(path)) {
                return op instanceof Op.GetData ? new OpResult.GetDataResult(shown().data(path), shown().stat(path))
                        : new OpResult.GetChildrenResult(system.children(path));
            }
            if ("/".equals(path)) {
                OpResult r = readTreeOp(c, op);
                if (r instanceof OpResult.GetDataResult d) {
                    return new OpResult.GetDataResult(d.data(), SystemNodes.root(d.stat()));
                } else if (r instanceof OpResult.GetChildrenResult ch) {
                    List<String> names = new java.util.ArrayList<>(ch.children());
                    names.add("zookeeper");
                    return new OpResult.GetChildrenResult(names);
                }
                return r;
            }
        }
        return readTreeOp(c, op);
    }

    private OpResult readTreeOp(Connection c, Op op) {
        String path = op.path();
        if (op instanceof Op.GetData) {
            NodeData nd = tree.getData(path);
            if (nd == null) {
                return new OpResult.ErrorResult(ZkException.Code.NO_NODE);
            }
            return mayRead(c, path) ? new OpResult.GetDataResult(nd.data(), nd.stat())
                    : new OpResult.ErrorResult(ZkException.Code.NO_AUTH);
        }
        Children ch = tree.getChildren(path);
        if (ch == null) {
            return new OpResult.ErrorResult(ZkException.Code.NO_NODE);
        }
        return mayRead(c, path) ? new OpResult.GetChildrenResult(ch.names())
                : new OpResult.ErrorResult(ZkException.Code.NO_AUTH);
    }

    /**
     * The connection's ids as ZooKeeper's whoAmI lists them: scheme, and the user its provider names (the empty
     * string for a scheme without a provider, such as {@code super}).
     */
    private ClientInfo[] whoAmI(Connection c) {
        ClientInfo[] infos = new ClientInfo[c.authIds.size()];
        for (int i = 0; i < infos.length; i++) {
            Id id = c.authIds.get(i);
            AuthProvider provider = authorizer.provider(id.scheme());
            String user = provider == null ? null : provider.userName(id.id());
            infos[i] = new ClientInfo(id.scheme(), user == null ? "" : user);
        }
        return infos;
    }

    /**
     * Adds the ids the scheme grants to the connection, or answers AUTH_FAILED (one log line, no secret, rate
     * limited); repeated refusals make the connection wait ({@link AuthAttempts}).
     */
    private Message.Reply authenticate(Connection c, Message.AuthRequest a, long zxid) {
        String scheme = a.scheme() != null && a.scheme().matches("[A-Za-z0-9_.-]{1,32}") ? a.scheme() : "(bad name)";
        long now = System.nanoTime();
        long wait = c.authAttempts.waitNanos(now);
        if (wait > 0) {
            return Replies.error(a.xid(), zxid, ZkException.Code.AUTH_FAILED, "not evaluated: "
                    + c.authAttempts.failures() + " refused authentications on this connection, retry in "
                    + (wait + 999_999) / 1_000_000 + " ms");
        }
        List<Id> ids = authorizer.authenticate(a.scheme(), new AuthProvider.ClientInfo(c.remoteAddress(),
                c.certificateSubject()), a.auth());
        String why = ids.isEmpty() ? (authorizer.provider(a.scheme()) == null ? "no provider for scheme"
                : "refused for scheme") : null;
        int added = 0;
        for (Id id : ids) {
            added += c.authIds.contains(id) ? 0 : 1;
        }
        if (why == null && c.authIds.size() + added > AuthAttempts.MAX_IDS) {
            why = "the connection holds " + c.authIds.size() + " ids (at most " + AuthAttempts.MAX_IDS + "), scheme";
        }
        if (why != null) {
            c.authAttempts.refused(now);
            problems.warn(AUTH_FAILURES, "authentication failed for session 0x{} from {}: {} {}",
                    Long.toHexString(c.sessionId), c.remoteAddress(), why, scheme);
            return Replies.error(a.xid(), zxid, ZkException.Code.AUTH_FAILED, why + " " + scheme);
        }
        c.authAttempts.succeeded();
        for (Id id : ids) {
            if (!c.authIds.contains(id)) {
                c.authIds.add(id);
            }
        }
        return Replies.ok(a.xid(), zxid, null);
    }

    /** A node's Stat as clients see it (the system nodes included), or null. */
    private Stat statShown(String path) {
        if (system != null && system.shownOver(tree)) {
            if (SystemNodes.isSystem(path)) {
                return shown().stat(path);
            }
            Stat s = tree.exists(path);
            return s != null && "/".equals(path) ? SystemNodes.root(s) : s;
        }
        return tree.exists(path);
    }

    /** Logs the summary of authentication failures held back, if their window is over (called every tick). */
    void flushProblems() {
        problems.flush();
    }

    private static List<String> list(String[] paths) {
        if (paths == null) {
            return List.of();
        }
        for (String p : paths) {
            valid(p);
        }
        return Arrays.asList(paths);
    }

    private static String valid(String path) {
        if (path == null || !ZkPaths.isValid(path)) {
            throw new InvalidPath(path);
        }
        return path;
    }

    /** A request named an invalid path (control flow only: no stack trace; the reply carries code and path). */
    private static final class InvalidPath extends RuntimeException {
        final String path;

        InvalidPath(String path) {
            super(null, null, false, false);
            this.path = path;
        }
    }
}
