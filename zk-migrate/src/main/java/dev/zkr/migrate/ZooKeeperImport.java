package dev.zkr.migrate;

import dev.zkr.consensus.Zxid;
import dev.zkr.server.peer.PeerConfig;
import dev.zkr.storage.ConsensusMeta;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.NodeImage;
import dev.zkr.tree.SessionInfo;
import org.apache.zookeeper.data.StatPersisted;
import org.apache.zookeeper.server.DataNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * {@code zkr-server import-zookeeper}: a ZooKeeper data directory (read with ZooKeeper's classes,
 * {@link ZooKeeperReader}) becomes a zkr data directory holding the same tree and live sessions, written with zkr's
 * own storage classes as one snapshot at ZooKeeper's last zxid (a zkr server starts from it and continues the zxids).
 * Every node keeps its path, data (null included), ACL and Stat fields; containers and TTL nodes become zkr's
 * container and TTL nodes; sessions keep their id and timeout and get the password ZooKeeper gave them, so their
 * clients resume on zkr. ZooKeeper's own {@code /zookeeper} subtree is not copied (zkr shows its own); quota nodes
 * under it are dropped with a note. A member of a ZooKeeper ensemble ({@code myid} in its dataDir) keeps its id: the
 * zkr directory gets that {@code myid} and the vote state a standalone zkr server of that id leaves, so a zkr ensemble
 * member starts on it. Written to a staging directory and moved into place at the end: a failed import
 * leaves {@code --to} as it was.
 */
public final class ZooKeeperImport {

    /** What an import did. */
    public record Result(Path to, long zxid, long snapshotZxid, long txnsReplayed, int nodes, int sessions,
                         int ephemerals, int containers, int ttlNodes, List<String> notes, int serverId) {
    }

    private static final String SYSTEM = "/zookeeper";

    private ZooKeeperImport() {
    }

    /**
     * Imports {@code from} (ZooKeeper's dataDir, or its version-2 directory; {@code fromLog} its dataLogDir when
     * separate, else null) into the zkr data directory {@code to}, which must be absent or empty.
     *
     * @throws MigrationException on unreadable, corrupt or unsupported input or an unusable target
     */
    public static Result run(Path from, Path fromLog, Path to) {
        ZooKeeperReader.Loaded zk = ZooKeeperReader.load(from, fromLog);
        OptionalInt myId = ZooKeeperReader.myId(from);
        List<String> notes = new ArrayList<>(zk.notes());
        List<NodeImage> images = new ArrayList<>(zk.tree().getNodeCount());
        int[] counts = new int[3]; // ephemerals, containers, TTL nodes
        long newest = convert(zk, images, counts, notes);
        List<SessionInfo> sessions = new ArrayList<>();
        for (Map.Entry<Long, Integer> s : zk.sessions().entrySet()) {
            sessions.add(new SessionInfo(s.getKey(), s.getValue(), SessionPasswords.zookeeper(s.getKey())));
        }
        DataTree tree;
        try {
            tree = DataTree.fromImages(zk.zxid(), Math.max(zk.lastTxnTime(), newest), sessions, images);
        } catch (IllegalArgumentException e) {
            throw new MigrationException("the ZooKeeper tree cannot be imported: " + e.getMessage(), e);
        }
        try (StagedDir staged = StagedDir.create(to)) {
            SnapshotStore store = SnapshotStore.open(staged.dir().resolve("snapshots"));
            store.write(zk.zxid(), tree::writeSnapshot);
            // a log that starts after the snapshot, as a server leaves it after installing one (docs/storage.md)
            TxnLog log = TxnLog.open(staged.dir().resolve("log"));
            try {
                if (zk.zxid() > log.lastZxid()) {
                    log.restartAfter(zk.zxid());
                }
            } finally {
                log.close();
            }
            if (myId.isPresent()) {
                // a member of a ZooKeeper ensemble: its id, and the vote state a member of a zkr ensemble must find
                // (docs/replication.md, P9) as a standalone server of that id leaves it: ZooKeeper's epoch accepted,
                // no vote cast in zkr (zkr's first election is for the next epoch)
                int id = myId.getAsInt();
                Files.writeString(staged.dir().resolve("myid"), id + "\n", StandardCharsets.US_ASCII);
                new ConsensusMeta(Zxid.epoch(zk.zxid()), ConsensusMeta.NO_VOTE, PeerConfig.standaloneEnsembleId(id),
                        id).store(staged.dir());
            }
            // read it back as a server will before anything is published
            Optional<?> back = store.loadNewestValid((zxid, in) -> DataTree.readSnapshot(in));
            if (back.isEmpty()) {
                throw new MigrationException("the zkr snapshot written in " + staged.dir() + " does not read back");
            }
            staged.publish();
        } catch (IOException | RuntimeException e) {
            if (e instanceof MigrationException m) {
                throw m;
            }
            throw new MigrationException("cannot write the zkr data directory " + to + ": " + e.getMessage(), e);
        }
        return new Result(to, zk.zxid(), zk.snapshotZxid(), zk.txnsReplayed(), images.size(), sessions.size(),
                counts[0], counts[1], counts[2], notes, myId.orElse(0));
    }

    /** ZooKeeper's nodes as images, parents first; returns the newest ctime/mtime seen. */
    private static long convert(ZooKeeperReader.Loaded zk, List<NodeImage> out, int[] counts, List<String> notes) {
        org.apache.zookeeper.server.DataTree zt = zk.tree();
        long newest = 0;
        ArrayDeque<String> stack = new ArrayDeque<>();
        stack.push("/");
        while (!stack.isEmpty()) {
            String path = stack.pop();
            DataNode node = zt.getNode(path);
            if (node == null) {
                throw new MigrationException("the ZooKeeper tree lists " + path + " as a child but has no such node");
            }
            TreeSet<String> kids;
            synchronized (node) {
                kids = new TreeSet<>(node.getChildren());
            }
            if (path.equals(SYSTEM)) {
                systemNodes(zt, notes);
                continue;
            }
            StatPersisted s = node.stat;
            long owner = s.getEphemeralOwner();
            boolean container = false;
            long ttl = 0;
            if (owner == NodeTypes.CONTAINER) {
                container = true;
                owner = 0;
                counts[1]++;
            } else if (NodeTypes.isExtended(owner) && !zk.sessions().containsKey(owner)) {
                ttl = NodeTypes.ttlOf(owner);
                if (ttl <= 0) {
                    throw new MigrationException("unsupported node type at " + path + ": ephemeralOwner 0x"
                            + Long.toHexString(owner) + " is an extended type ZooKeeper 3.9 does not define");
                }
                owner = 0;
                counts[2]++;
            } else if (owner != 0) {
                counts[0]++;
                if (!zk.sessions().containsKey(owner)) {
                    notes.add("ephemeral " + path + " belongs to session 0x" + Long.toHexString(owner)
                            + ", which is not live in the ZooKeeper data; it is kept as ZooKeeper keeps it");
                }
            }
            out.add(new NodeImage(path, node.getData(), Acls.toZkr(zt.getACL(node)), s.getCzxid(), s.getMzxid(),
                    s.getPzxid(), s.getCtime(), s.getMtime(), s.getVersion(), s.getCversion(), s.getAversion(), owner,
                    container, ttl));
            newest = Math.max(newest, Math.max(s.getCtime(), s.getMtime()));
            String prefix = path.equals("/") ? "/" : path + "/";
            for (String k : kids.descendingSet()) {
                stack.push(prefix + k);
            }
        }
        return newest;
    }

    /** Notes what under /zookeeper is not carried (quotas, nodes of one's own). */
    private static void systemNodes(org.apache.zookeeper.server.DataTree zt, List<String> notes) {
        ArrayDeque<String> stack = new ArrayDeque<>();
        stack.push(SYSTEM);
        List<String> dropped = new ArrayList<>();
        while (!stack.isEmpty()) {
            String p = stack.pop();
            DataNode n = zt.getNode(p);
            if (n == null) {
                continue;
            }
            if (!p.equals(SYSTEM) && !p.equals("/zookeeper/config") && !p.equals("/zookeeper/quota")) {
                dropped.add(p);
            }
            for (String k : n.getChildren()) {
                stack.push(p + "/" + k);
            }
        }
        if (!dropped.isEmpty()) {
            notes.add(dropped.size() + " node(s) under /zookeeper not imported (zkr has no quotas and shows its own "
                    + "/zookeeper): " + String.join(", ", dropped.subList(0, Math.min(5, dropped.size())))
                    + (dropped.size() > 5 ? ", ..." : ""));
        }
    }
}
