package dev.zkr.server.admin;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.port.NettyServer;
import dev.zkr.server.round.Core;
import dev.zkr.server.round.ReadAccess;
import dev.zkr.server.replication.ReplicaDriver;
import dev.zkr.client.Children;
import dev.zkr.client.Id;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkPaths;
import dev.zkr.consensus.Zxid;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.SessionInfo;
import dev.zkr.tree.WatchTable;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * What the admin endpoint shows of one server, as JSON: its state ({@code /status}), sessions, watches, nodes, the
 * ensemble and the recipes under a path. Node data, names and Stat are read in one round through {@link Core#query},
 * under {@link ReadAccess}, the client port's rule, for the caller's ids: the ACL checked and the data shown are of
 * the same tree. So is what only rounds may touch (the watch table, the session gate, the leader's view of its
 * followers). Runs on the admin endpoint's thread, never on the request path.
 */
final class AdminView {

    /** How long the admin endpoint waits for the pipeline to answer a query. */
    static final long QUERY_TIMEOUT_MS = 2_000;
    /** Most data bytes {@code /api/node} returns; {@code /api/children} previews fewer. */
    static final int NODE_DATA_MAX = 64 * 1024;
    static final int PREVIEW_MAX = 120;
    /** Most children {@code /api/children} lists. */
    static final int CHILDREN_MAX = 1_000;

    private final ServerConfig config;
    private final Core core;
    private final DataTree tree;
    private final WatchTable watches;
    private final ReplicaDriver driver;
    private final NettyServer connections;
    private final ServerMetrics metrics;
    private final ReadAccess access;
    private final long ensembleId;

    AdminView(ServerConfig config, Core core, DataTree tree, WatchTable watches,
              ReplicaDriver driver, NettyServer connections, ServerMetrics metrics, long ensembleId) {
        this.ensembleId = ensembleId;
        this.config = config;
        this.core = core;
        this.tree = tree;
        this.watches = watches;
        this.driver = driver;
        this.connections = connections;
        this.metrics = metrics;
        this.access = new ReadAccess(tree, config.authorizer());
    }

    /** The zkr version (from the jar's build), or "dev". */
    static String version() {
        String v = AdminView.class.getPackage().getImplementationVersion();
        if (v == null) {
            try (var in = AdminView.class.getResourceAsStream("/dev/zkr/server/version.properties")) {
                if (in != null) {
                    java.util.Properties p = new java.util.Properties();
                    p.load(in);
                    v = p.getProperty("version");
                }
            } catch (java.io.IOException e) {
                v = null;
            }
        }
        return v == null || v.startsWith("${") ? "dev" : v;
    }

    private record RoundState(int watches, List<ServerState.Follower> followers,
                              List<dev.zkr.client.EnsembleMember> members) {
    }

    /** The server's state now: one round for the counts only rounds may read; -1 counts if it does not answer. */
    ServerState state() {
        dev.zkr.consensus.RoleInfo role = core.role();
        RoundState round;
        try {
            round = core.query(() -> new RoundState(watches.size(), followers(), members()), QUERY_TIMEOUT_MS);
        } catch (IllegalStateException e) {
            round = new RoundState(-1, List.of(), List.of());
        }
        return new ServerState(version(), config.serverId(), config.isEnsemble(),
                role.role(), role.leaderId(), role.epoch(),
                tree.lastZxid(), core.servingNow(), tree.nodeCount(), tree.approximateBytes(), tree.sessionCount(),
                round.watches(), tree.ephemeralTotal(), connections.open(), metrics.outstanding(),
                round.followers(), round.members(), ensembleId);
    }

    /** Inside a round: the membership in force (docs/membership.md), empty for a standalone server. */
    private List<dev.zkr.client.EnsembleMember> members() {
        dev.zkr.tree.Txn.Membership m = driver == null || !config.isEnsemble() ? null : driver.membership();
        return m == null ? List.of() : m.members();
    }

    /** Inside a round: the leader's followers and their lag (empty elsewhere). */
    private List<ServerState.Follower> followers() {
        if (driver == null || !config.isEnsemble()) {
            return List.of();
        }
        List<ServerState.Follower> out = new ArrayList<>();
        for (long[] f : driver.followerLag()) {
            out.add(new ServerState.Follower((int) f[0], f[1], f[2]));
        }
        return out;
    }

    // ---- JSON answers ----

    String statusJson(ServerState s) {
        JsonWriter w = new JsonWriter().beginObject()
                .field("version", s.version())
                .field("serverId", s.serverId())
                .field("mode", s.ensemble() ? "ensemble" : "standalone")
                .field("role", s.roleName())
                .field("leaderId", s.leaderId())
                .field("epoch", s.epoch())
                .field("zxid", "0x" + Long.toHexString(s.zxid()))
                .field("zxidEpochCounter", Zxid.str(s.zxid()))
                .field("serving", s.serving())
                .field("ensembleId", Long.toHexString(s.ensembleId()))
                .name("counts").beginObject()
                .field("znodes", s.znodes())
                .field("approximateDataBytes", s.dataBytes())
                .field("sessions", s.sessions())
                .field("watches", s.watches())
                .field("ephemerals", s.ephemerals())
                .field("connections", s.connections())
                .field("outstandingRequests", s.outstanding())
                .endObject();
        followers(w, s);
        membership(w, s);
        return w.endObject().toString();
    }

    /** The membership in force: each member's id, addresses and membership role (voter, learner, observer). */
    private static void membership(JsonWriter w, ServerState s) {
        w.name("membership").beginArray();
        for (dev.zkr.client.EnsembleMember m : s.members()) {
            w.beginObject().field("id", m.id()).field("role", m.role().name().toLowerCase(java.util.Locale.ROOT))
                    .field("host", m.host()).field("peerPort", m.peerPort()).field("clientPort", m.clientPort())
                    .endObject();
        }
        w.endArray();
    }

    private static void followers(JsonWriter w, ServerState s) {
        w.name("followers").beginArray();
        for (ServerState.Follower f : s.followers()) {
            w.beginObject().field("id", f.id()).field("ackedZxid", Zxid.str(f.ackedZxid()))
                    .field("lagTxns", f.lagTxns()).endObject();
        }
        w.endArray();
    }

    /** The ensemble's members (from the member lines) and what this server knows of their roles. */
    String ensembleJson() {
        ServerState s = state();
        JsonWriter w = new JsonWriter().beginObject()
                .field("serverId", s.serverId())
                .field("mode", s.ensemble() ? "ensemble" : "standalone")
                .field("role", s.roleName())
                .field("leaderId", s.leaderId())
                .field("epoch", s.epoch())
                .field("serving", s.serving())
                .name("members").beginArray();
        if (s.members().isEmpty()) {
            w.beginObject().field("id", s.serverId()).field("host", config.bindAddress().getHostAddress())
                    .field("clientPort", config.port()).field("role", s.roleName()).field("self", true).endObject();
        }
        for (dev.zkr.client.EnsembleMember m : s.members()) {
            String role = m.id() == s.serverId() ? s.roleName() : m.id() == s.leaderId() ? "leader"
                    : s.leaderId() == s.serverId() ? "follower" : "unknown";
            w.beginObject().field("id", m.id()).field("host", m.host()).field("clientPort", m.clientPort())
                    .field("peerPort", m.peerPort()).field("role", role)
                    .field("membership", m.role().name().toLowerCase(java.util.Locale.ROOT))
                    .field("self", m.id() == s.serverId());
            for (ServerState.Follower f : s.followers()) {
                if (f.id() == m.id()) {
                    w.field("lagTxns", f.lagTxns()).field("ackedZxid", Zxid.str(f.ackedZxid()));
                }
            }
            w.endObject();
        }
        w.endArray();
        followers(w, s);
        return w.endObject().toString();
    }

    private record SessionRow(long id, int timeoutMs, int ephemerals, String connection, int watches) {
    }

    /** The sessions: id, timeout, ephemerals, the connection serving it on this server, its watches here. */
    String sessionsJson() {
        Map<Long, SessionInfo> committed = tree.sessions();
        List<SessionRow> rows = core.query(() -> {
            WatchTable.Summary ws = watches.summary(0);
            List<SessionRow> out = new ArrayList<>();
            committed.values().stream().sorted(java.util.Comparator.comparingLong(SessionInfo::sessionId))
                    .forEach(si -> {
                        out.add(new SessionRow(si.sessionId(), si.timeoutMs(), tree.ephemeralCount(si.sessionId()),
                                core.remoteOf(si.sessionId()), ws.bySession().getOrDefault(si.sessionId(), 0)));
                    });
            return out;
        }, QUERY_TIMEOUT_MS);
        JsonWriter w = new JsonWriter().beginObject().field("count", rows.size())
                .field("connectedHere", rows.stream().filter(r -> r.connection() != null).count())
                .name("sessions").beginArray();
        for (SessionRow r : rows) {
            w.beginObject().field("id", "0x" + Long.toHexString(r.id())).field("timeoutMs", r.timeoutMs())
                    .field("ephemerals", r.ephemerals()).field("watches", r.watches())
                    .field("connection", r.connection()).endObject();
        }
        return w.endArray().endObject().toString();
    }

    /** Watches by kind, the most watched paths, and watches per session. */
    String watchesJson() {
        WatchTable.Summary s = core.query(() -> watches.summary(20), QUERY_TIMEOUT_MS);
        JsonWriter w = new JsonWriter().beginObject().field("total", s.total()).field("paths", s.paths())
                .name("byKind").beginObject().field("data", s.data()).field("child", s.child())
                .field("persistent", s.persistent()).field("persistentRecursive", s.recursive()).endObject()
                .name("topPaths").beginArray();
        for (Map.Entry<String, Integer> e : s.topPaths()) {
            w.beginObject().field("path", e.getKey()).field("watchers", e.getValue()).endObject();
        }
        w.endArray().name("bySession").beginArray();
        s.bySession().forEach((id, n) -> w.beginObject().field("session", "0x" + Long.toHexString(id))
                .field("watches", n).endObject());
        return w.endArray().endObject().toString();
    }

    /** What a node view found: the node and the caller may read it, no such node, or no permission. */
    enum Outcome { FOUND, NO_NODE, NO_PERMISSION }

    /** A node view's answer: the outcome and, when {@link Outcome#FOUND}, the JSON. */
    record Answer(Outcome outcome, String json) {
        static final Answer NO_NODE = new Answer(Outcome.NO_NODE, null);
        static final Answer NO_PERMISSION = new Answer(Outcome.NO_PERMISSION, null);
    }

    /** One child as the caller may see it: its data and Stat, or only its name ({@code node} null). */
    private record ChildRead(String name, NodeData node) {
    }

    /** What one round read of a node's children for a caller: the outcome, the number of children, the first ones. */
    private record ChildrenRead(Outcome outcome, int count, List<ChildRead> children) {
    }

    /**
     * A node's children (sorted, at most {@value #CHILDREN_MAX}) with their Stat and a data preview, as
     * {@code getChildren} and {@code getData} on the client port would show them to {@code ids}: no permission on
     * the node, no names; a child the ids may not READ, its name only. Read in one round, as the client port reads.
     */
    Answer childrenJson(String path, List<Id> ids) {
        ChildrenRead read = core.query(() -> {
            Children c = tree.getChildren(path);
            if (c == null) {
                return new ChildrenRead(Outcome.NO_NODE, 0, List.of());
            }
            if (!access.mayRead(path, ids)) {
                return new ChildrenRead(Outcome.NO_PERMISSION, 0, List.of());
            }
            List<String> names = new ArrayList<>(c.names());
            names.sort(null);
            List<ChildRead> out = new ArrayList<>(Math.min(names.size(), CHILDREN_MAX));
            for (String n : names.subList(0, Math.min(names.size(), CHILDREN_MAX))) {
                String child = RecipeScan.child(path, n);
                NodeData d = tree.getData(child);
                if (d != null) { // else deleted: not listed
                    out.add(new ChildRead(n, access.mayRead(child, ids) ? d : null));
                }
            }
            return new ChildrenRead(Outcome.FOUND, names.size(), out);
        }, QUERY_TIMEOUT_MS);
        if (read.outcome() != Outcome.FOUND) {
            return read.outcome() == Outcome.NO_NODE ? Answer.NO_NODE : Answer.NO_PERMISSION;
        }
        JsonWriter w = new JsonWriter().beginObject().field("path", path).field("count", read.count())
                .field("truncated", read.count() > CHILDREN_MAX).name("children").beginArray();
        for (ChildRead r : read.children()) {
            w.beginObject().field("name", r.name()).field("permission", r.node() != null);
            if (r.node() != null) {
                data(w, r.node().data(), PREVIEW_MAX);
                stat(w, r.node().stat());
            }
            w.endObject();
        }
        return new Answer(Outcome.FOUND, w.endArray().endObject().toString());
    }

    /** Marks, inside a round's answer, a node the caller may not READ. */
    private static final NodeData NO_PERMISSION = new NodeData(new byte[0], null);

    /** A node's data (at most {@value #NODE_DATA_MAX} bytes) and Stat, if {@code ids} may READ it. */
    Answer nodeJson(String path, List<Id> ids) {
        NodeData d = core.query(() -> {
            NodeData nd = tree.getData(path);
            return nd == null || access.mayRead(path, ids) ? nd : NO_PERMISSION;
        }, QUERY_TIMEOUT_MS);
        if (d == null || d == NO_PERMISSION) {
            return d == null ? Answer.NO_NODE : Answer.NO_PERMISSION;
        }
        JsonWriter w = new JsonWriter().beginObject().field("path", path);
        data(w, d.data(), NODE_DATA_MAX);
        stat(w, d.stat());
        return new Answer(Outcome.FOUND, w.endObject().toString());
    }

    /**
     * The recipes found at {@code path} and below, over the tree as {@code ids} may read it: the children of a node
     * they may not READ are not listed, and a participant node they may not READ shows its name only.
     */
    String recipesJson(String path, List<Id> ids) {
        RecipeScan.Tree all = RecipeScan.of(tree);
        RecipeScan.Tree readable = new RecipeScan.Tree() {
            @Override
            public List<String> children(String p) {
                return access.mayRead(p, ids) ? all.children(p) : null;
            }

            @Override
            public NodeData node(String p) {
                return access.mayRead(p, ids) ? all.node(p) : null;
            }
        };
        long now = System.currentTimeMillis();
        List<RecipeScan.Recipe> found = core.query(() -> new RecipeScan(readable, now).scan(path), QUERY_TIMEOUT_MS);
        JsonWriter w = new JsonWriter().beginObject().field("path", path).name("recipes").beginArray();
        for (RecipeScan.Recipe r : found) {
            w.beginObject().field("path", r.path()).field("kind", r.kind());
            participants(w, "holders", r.holders());
            participants(w, "waiters", r.waiters());
            w.name("details").beginObject();
            r.details().forEach(w::field);
            w.endObject().endObject();
        }
        return w.endArray().endObject().toString();
    }

    private static void participants(JsonWriter w, String name, List<RecipeScan.Participant> ps) {
        w.name(name).beginArray();
        for (RecipeScan.Participant p : ps) {
            w.beginObject().field("name", p.name()).field("session", p.owner() == 0 ? null
                    : "0x" + Long.toHexString(p.owner())).field("sequence", p.sequence()).field("data", p.data())
                    .field("czxid", Zxid.str(p.czxid())).endObject();
        }
        w.endArray();
    }

    /** The data as UTF-8 text when it decodes as such (else null), always as base64; {@code truncated} if cut. */
    private static void data(JsonWriter w, byte[] data, int max) {
        byte[] d = data == null ? new byte[0] : data;
        int n = Math.min(d.length, max);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(d, 0, n)).toString();
        } catch (CharacterCodingException e) {
            text = n < d.length ? new String(d, 0, n, StandardCharsets.UTF_8) : null; // a cut may split a character
        }
        w.field("text", text).field("base64", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(d, n)))
                .field("truncated", n < d.length);
    }

    private static void stat(JsonWriter w, Stat s) {
        w.name("stat").beginObject()
                .field("czxid", Zxid.str(s.czxid())).field("mzxid", Zxid.str(s.mzxid()))
                .field("pzxid", Zxid.str(s.pzxid())).field("ctime", s.ctime()).field("mtime", s.mtime())
                .field("version", s.version()).field("cversion", s.cversion()).field("aversion", s.aversion())
                .field("ephemeralOwner", s.ephemeralOwner() == 0 ? "0" : "0x" + Long.toHexString(s.ephemeralOwner()))
                .field("dataLength", s.dataLength()).field("numChildren", s.numChildren())
                .endObject();
    }

    /** True if {@code path} is a valid node path. */
    static boolean validPath(String path) {
        return path != null && ZkPaths.isValid(path);
    }
}
