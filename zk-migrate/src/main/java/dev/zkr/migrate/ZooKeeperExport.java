package dev.zkr.migrate;

import dev.zkr.storage.LogConfig;
import dev.zkr.storage.Recovery;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.NodeImage;
import dev.zkr.tree.SessionInfo;
import dev.zkr.tree.TxnCodec;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.StatPersisted;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.ReferenceCountedACLCache;
import org.apache.zookeeper.server.persistence.FileSnap;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code zkr-server export-zookeeper}, the way back: a zkr data directory (recovered as a standalone server recovers
 * it: newest valid snapshot plus every durable log record) becomes a ZooKeeper data directory holding one snapshot,
 * {@code version-2/snapshot.<zxid>}, that ZooKeeper 3.9 starts from (no log is needed; ZooKeeper continues the zxids
 * after the snapshot's). The tree is handed to ZooKeeper's own {@code DataTree.deserialize} and written by ZooKeeper's
 * {@code FileTxnSnapLog.save}, so the file is ZooKeeper's format, checksum and tree digest. Every node keeps its
 * path, data, ACL and Stat fields (containers and TTL nodes in ZooKeeper's {@code ephemeralOwner} encoding); sessions
 * keep their id and timeout. ZooKeeper derives a session's password from its id, so only sessions that came from
 * ZooKeeper (imported) can resume there; the clients of sessions zkr created are told their session expired, and
 * their ephemerals go when ZooKeeper expires the sessions. The {@code /zookeeper} nodes are ZooKeeper's own.
 */
public final class ZooKeeperExport {

    /** What an export did. */
    public record Result(Path snapshot, long zxid, int nodes, int sessions) {
    }

    private ZooKeeperExport() {
    }

    /**
     * Exports the zkr data directory {@code from} (of a stopped server) to {@code to}, which must be absent or empty.
     * Opening the zkr log is what a server start does (a torn last record is cut).
     *
     * @throws MigrationException on a missing, corrupt or unreadable zkr data directory or an unusable target
     */
    public static Result run(Path from, Path to) {
        return run(from, null, to);
    }

    /**
     * As {@link #run(Path, Path)}, the log read from {@code fromLog/log} when the server ran with a
     * {@code dataLogDir} ({@code fromLog}; null: {@code from/log}).
     */
    public static Result run(Path from, Path fromLog, Path to) {
        Recovery.Result<DataTree> recovered = recover(from, fromLog);
        DataTree tree = recovered.state();
        long zxid = tree.lastZxid();
        org.apache.zookeeper.server.DataTree zt = toZooKeeper(tree);
        zt.lastProcessedZxid = zxid;
        ConcurrentHashMap<Long, Integer> sessions = new ConcurrentHashMap<>();
        for (SessionInfo s : tree.sessions().values()) {
            sessions.put(s.sessionId(), s.timeoutMs());
        }
        try (StagedDir staged = StagedDir.create(to)) {
            FileTxnSnapLog files = new FileTxnSnapLog(staged.dir().toFile(), staged.dir().toFile());
            Path snapshot;
            try {
                snapshot = files.save(zt, sessions, true).toPath();
            } finally {
                files.close();
            }
            // read it back with ZooKeeper's reader before anything is published
            org.apache.zookeeper.server.DataTree back = new org.apache.zookeeper.server.DataTree();
            long backZxid = new FileSnap(snapshot.getParent().toFile()).deserialize(back, new HashMap<>());
            if (backZxid != zxid || back.getNodeCount() != zt.getNodeCount()) {
                throw new MigrationException("the ZooKeeper snapshot written in " + staged.dir()
                        + " does not read back (zxid 0x" + Long.toHexString(backZxid) + ", " + back.getNodeCount()
                        + " nodes)");
            }
            staged.publish();
            return new Result(to.resolve(staged.dir().relativize(snapshot)), zxid, zt.getNodeCount(),
                    sessions.size());
        } catch (IOException e) {
            throw new MigrationException("cannot write the ZooKeeper snapshot to " + to + ": " + e.getMessage(), e);
        }
    }

    private static Recovery.Result<DataTree> recover(Path from, Path fromLog) {
        Path snapDir = from.resolve("snapshots");
        Path logDir = (fromLog == null ? from : fromLog).resolve("log");
        if (fromLog != null && !Files.isDirectory(logDir)) {
            throw new MigrationException("--from-log " + fromLog + " holds no zkr log (no " + logDir.getFileName()
                    + "/ directory in it)");
        }
        if (!Files.isDirectory(from)) {
            throw new MigrationException("--from " + from + " is not a directory");
        }
        if (!Files.isDirectory(snapDir) && !Files.isDirectory(logDir)) {
            throw new MigrationException("no zkr data in " + from + ": expected its snapshots/ and log/ directories");
        }
        try {
            SnapshotStore snapshots = SnapshotStore.open(snapDir);
            TxnLog log = TxnLog.open(logDir, LogConfig.defaults());
            try {
                return Recovery.recover(snapshots, log, (zxid, in) -> DataTree.readSnapshot(in), DataTree::new,
                        (t, record) -> {
                            TxnCodec.Entry e = TxnCodec.decode(record.payload());
                            t.apply(e.header(), e.txn());
                        });
            } finally {
                log.close();
            }
        } catch (RuntimeException e) {
            throw new MigrationException("cannot recover the zkr data directory " + from + ": " + e.getMessage(), e);
        }
    }

    /**
     * The tree as ZooKeeper holds it, built by ZooKeeper's own snapshot reader from the serialized form its
     * {@code DataTree.serialize} writes (ACL cache, then nodes parents first with the root as "", then "/"), so
     * ZooKeeper computes its indexes and digest itself.
     */
    static org.apache.zookeeper.server.DataTree toZooKeeper(DataTree tree) {
        ReferenceCountedACLCache acls = new ReferenceCountedACLCache();
        List<String> paths = new ArrayList<>();
        List<DataNode> nodes = new ArrayList<>();
        org.apache.zookeeper.server.DataTree fresh = new org.apache.zookeeper.server.DataTree();
        tree.forEachImage(im -> {
            if (im.path().equals("/zookeeper") || im.path().startsWith("/zookeeper/")) {
                return; // a data directory from before system nodes were shown may hold one; ZooKeeper has its own
            }
            nodes.add(node(im, acls));
            paths.add(im.path().equals("/") ? "" : im.path());
            if (im.path().equals("/")) {
                systemNodes(fresh, "/zookeeper", acls, paths, nodes);
            }
        });
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            BinaryOutputArchive oa = BinaryOutputArchive.getArchive(bytes);
            acls.serialize(oa);
            for (int i = 0; i < paths.size(); i++) {
                oa.writeString(paths.get(i), "path");
                oa.writeRecord(nodes.get(i), "node");
            }
            oa.writeString("/", "path");
            org.apache.zookeeper.server.DataTree zt = new org.apache.zookeeper.server.DataTree();
            zt.deserialize(BinaryInputArchive.getArchive(new ByteArrayInputStream(bytes.toByteArray())), "tree");
            return zt;
        } catch (IOException e) {
            throw new MigrationException("ZooKeeper does not accept the exported tree: " + e.getMessage(), e);
        }
    }

    /** The root's kids in ZooKeeper include its own /zookeeper subtree, taken from a fresh ZooKeeper tree. */
    private static void systemNodes(org.apache.zookeeper.server.DataTree fresh, String path,
                                    ReferenceCountedACLCache acls, List<String> paths, List<DataNode> nodes) {
        ArrayDeque<String> stack = new ArrayDeque<>();
        stack.push(path);
        while (!stack.isEmpty()) {
            String p = stack.pop();
            DataNode n = fresh.getNode(p);
            StatPersisted s = copy(n.stat);
            List<ACL> acl = fresh.getACL(n);
            DataNode copy = new DataNode(n.getData(), acls.convertAcls(acl), s);
            paths.add(p);
            nodes.add(copy);
            for (String k : new java.util.TreeSet<>(n.getChildren())) {
                stack.push(p + "/" + k);
            }
        }
    }

    private static DataNode node(NodeImage im, ReferenceCountedACLCache acls) {
        long owner = im.ephemeralOwner();
        if (im.container()) {
            owner = NodeTypes.CONTAINER;
        } else if (im.ttlMs() > 0) {
            owner = NodeTypes.ttlOwner(im.ttlMs());
        }
        StatPersisted s = new StatPersisted(im.czxid(), im.mzxid(), im.ctime(), im.mtime(), im.version(),
                im.cversion(), im.aversion(), owner, im.pzxid());
        return new DataNode(im.data(), acls.convertAcls(Acls.toZooKeeper(im.acls())), s);
    }

    private static StatPersisted copy(StatPersisted s) {
        return new StatPersisted(s.getCzxid(), s.getMzxid(), s.getCtime(), s.getMtime(), s.getVersion(),
                s.getCversion(), s.getAversion(), s.getEphemeralOwner(), s.getPzxid());
    }

}
