package dev.zkr.migrate;

import org.apache.jute.Record;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.persistence.FileSnap;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.apache.zookeeper.txn.TxnDigest;
import org.apache.zookeeper.txn.TxnHeader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * Loads a ZooKeeper data directory with ZooKeeper's own classes, read only: the newest valid snapshot
 * ({@link FileSnap}, which skips damaged ones as ZooKeeper does), then every logged txn after it
 * ({@link FileTxnSnapLog#fastForwardFromEdits}: a torn last record is the end of the log, a CRC error is fatal, as
 * when ZooKeeper starts). A digest mismatch (ZooKeeper 3.6+ logs and snapshots carry tree digests) fails the load,
 * where ZooKeeper would only log it. {@code FileTxnSnapLog.restore} is not used: on a directory without a valid
 * snapshot it writes an empty one.
 */
final class ZooKeeperReader {

    /** What was loaded: the tree, the live sessions (id to timeout), the last zxid, the newest txn time seen. */
    record Loaded(DataTree tree, Map<Long, Integer> sessions, long zxid, long snapshotZxid, long txnsReplayed,
                  long lastTxnTime, List<String> notes) {
    }

    private ZooKeeperReader() {
    }

    /**
     * Loads the data: {@code dataDir} holds {@code version-2/snapshot.*} (or is that {@code version-2} directory),
     * {@code logDir} the {@code log.*} files (the same directory unless ZooKeeper ran with a separate dataLogDir).
     */
    static Loaded load(Path dataDir, Path logDir) {
        Path snapDir = versionDir(dataDir, "--from");
        Path txnDir = logDir == null ? snapDir : versionDir(logDir, "--from-log");
        List<Path> snapshots = files(snapDir, "snapshot.");
        List<Path> logs = files(txnDir, "log.");
        if (snapshots.isEmpty() && logs.isEmpty()) {
            throw new MigrationException("no ZooKeeper data in " + snapDir
                    + (txnDir.equals(snapDir) ? "" : " and " + txnDir)
                    + ": expected snapshot.<zxid> and log.<zxid> files (ZooKeeper's dataDir/version-2)");
        }
        if (snapshots.isEmpty()) {
            throw new MigrationException("no snapshot in " + snapDir + " but " + logs.size() + " log file(s) in "
                    + txnDir + ": ZooKeeper itself refuses to start from this (its \"No snapshot found, but there "
                    + "are log entries\"); give --from the directory that holds the snapshots");
        }
        DataTree tree = new DataTree();
        List<Long> mismatches = new ArrayList<>();
        tree.addDigestWatcher(mismatches::add);
        Map<Long, Integer> sessions = new HashMap<>();
        long snapZxid;
        try {
            snapZxid = new FileSnap(snapDir.toFile()).deserialize(tree, sessions);
        } catch (IOException | RuntimeException e) {
            if (String.valueOf(e.getMessage()).startsWith("Not able to find valid snapshots")) {
                // FileSnap tried every complete-looking snapshot and each failed its checksum or did not parse
                throw noValidSnapshot(snapDir, snapshots, e);
            }
            throw new MigrationException("cannot read the ZooKeeper snapshots in " + snapDir + ": " + e.getMessage(), e);
        }
        if (snapZxid < 0) {
            throw noValidSnapshot(snapDir, snapshots, null);
        }
        // the verdict is the last digest compared (the snapshot's at load, then each logged txn's once the replay
        // is past the snapshot's fuzzy range): a mismatch that later txns' digests no longer show (ZooKeeper's
        // replay of a fuzzy snapshot can differ at the very txn the snapshot's digest names) is a note
        boolean snapshotMismatch = !mismatches.isEmpty();
        long[] lastCompared = {snapshotMismatch ? snapZxid : -1};
        boolean[] lastMatched = {!snapshotMismatch};
        long[] replayed = {0};
        long[] lastTime = {0};
        long zxid;
        FileTxnSnapLog files = null;
        try {
            files = new FileTxnSnapLog(txnDir.getParent().toFile(), snapDir.getParent().toFile());
            zxid = files.fastForwardFromEdits(tree, sessions, new FileTxnSnapLog.PlayBackListener() {
                @Override
                public void onTxnLoaded(TxnHeader hdr, Record rec, TxnDigest digest) {
                    replayed[0]++;
                    lastTime[0] = Math.max(lastTime[0], hdr.getTime());
                    // ZooKeeper compared this txn's tree (DataTree.compareSnapshotDigests at the txn the snapshot's
                    // digest names, compareDigest once past the snapshot's fuzzy range when the txn has a digest);
                    // a mismatch was reported to the watcher for this zxid
                    boolean reported = !mismatches.isEmpty()
                            && mismatches.get(mismatches.size() - 1) == hdr.getZxid();
                    if (reported || digest != null && tree.getDigestFromLoadedSnapshot() == null) {
                        lastCompared[0] = hdr.getZxid();
                        lastMatched[0] = !reported;
                    }
                }
            });
        } catch (IOException | RuntimeException e) {
            throw new MigrationException("cannot replay the ZooKeeper transaction logs in " + txnDir + " after "
                    + "snapshot 0x" + Long.toHexString(snapZxid) + ": " + e.getMessage(), e);
        } finally {
            if (files != null) {
                try {
                    files.close();
                } catch (IOException e) {
                    // read only: nothing to lose
                }
            }
        }
        if (!lastMatched[0]) {
            if (lastCompared[0] == snapZxid && snapshotMismatch) {
                throw new MigrationException("the digest of snapshot 0x" + Long.toHexString(snapZxid) + " in "
                        + snapDir + " does not match its tree, and no logged txn after it confirms the tree: the "
                        + "snapshot is damaged");
            }
            throw new MigrationException("digest mismatch after txn 0x" + Long.toHexString(lastCompared[0])
                    + " in the ZooKeeper log in " + txnDir + ", the last txn whose digest could be compared: the log "
                    + "or snapshot is damaged (ZooKeeper would only log this and serve a tree that differs from its "
                    + "history)");
        }
        List<String> notes = new ArrayList<>();
        if (!mismatches.isEmpty()) {
            notes.add("ZooKeeper's tree digest did not match the replayed tree at " + new HashSet<>(mismatches).size()
                    + " txn(s) "
                    + "(first 0x" + Long.toHexString(mismatches.get(0)) + (snapshotMismatch ? ", the snapshot's" : "")
                    + "), and matches again at the last one compared, 0x" + Long.toHexString(lastCompared[0])
                    + ": the tree imported is the one ZooKeeper had then (ZooKeeper's replay of a snapshot taken "
                    + "while it was writing can differ for a moment)");
        }
        return new Loaded(tree, sessions, Math.max(zxid, snapZxid), snapZxid, replayed[0], lastTime[0],
                List.copyOf(notes));
    }

    private static MigrationException noValidSnapshot(Path snapDir, List<Path> snapshots, Exception cause) {
        return new MigrationException("no valid ZooKeeper snapshot in " + snapDir + " (" + snapshots.size()
                + " snapshot file(s), every one truncated or damaged" + (cause == null ? "" : ": a checksum error or "
                + "unreadable content") + ": " + names(snapshots) + ")", cause);
    }

    /**
     * The server id in ZooKeeper's {@code dataDir/myid} (a member of an ensemble; {@code from} is the dataDir or its
     * version-2 directory), empty when there is none (a standalone server).
     *
     * @throws MigrationException if the file is there but does not hold an id zkr can use (1..255)
     */
    static OptionalInt myId(Path from) {
        Path dir = from.toAbsolutePath().normalize();
        if (dir.getFileName() != null && dir.getFileName().toString().equals(FileTxnSnapLog.version
                + FileTxnSnapLog.VERSION)) {
            dir = dir.getParent();
        }
        Path file = dir.resolve("myid");
        if (!Files.isRegularFile(file)) {
            return OptionalInt.empty();
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            throw new MigrationException("cannot read " + file + ": " + e.getMessage(), e);
        }
        try {
            int id = Integer.parseInt(text);
            if (id >= 1 && id <= 255) {
                return OptionalInt.of(id);
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new MigrationException(file + " holds \"" + (text.length() > 20 ? text.substring(0, 20) + "..." : text)
                + "\", not a server id zkr can use (1..255)");
    }

    /** The {@code version-2} directory of a data dir given as itself or its parent. */
    private static Path versionDir(Path dir, String option) {
        if (!Files.isDirectory(dir)) {
            throw new MigrationException(option + " " + dir + " is not a directory");
        }
        Path abs = dir.toAbsolutePath().normalize();
        if (abs.getFileName() != null && abs.getFileName().toString().equals(FileTxnSnapLog.version + FileTxnSnapLog.VERSION)) {
            return abs;
        }
        Path v = abs.resolve(FileTxnSnapLog.version + FileTxnSnapLog.VERSION);
        if (!Files.isDirectory(v)) {
            throw new MigrationException("no ZooKeeper data in " + dir + ": it has no " + v.getFileName()
                    + " directory (ZooKeeper 3.5-3.9 keep snapshots and logs in dataDir/version-2)");
        }
        return v;
    }

    private static List<Path> files(Path dir, String prefix) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix) && Files.isRegularFile(p)).sorted()
                    .toList();
        } catch (IOException e) {
            throw new MigrationException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String names(List<Path> files) {
        List<String> n = new ArrayList<>();
        for (Path p : files) {
            n.add(p.getFileName().toString());
        }
        return String.join(", ", n);
    }

}
