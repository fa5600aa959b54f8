package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The consensus layer's durable vote state, one small file {@code consensus.meta} in the data directory. The
 * current epoch is not here: it is the epoch of the last EPOCH record in the log, so it is never ahead of the log.
 *
 * <pre>
 * consensus.meta = magic:int32 "ZKRC" | version:int32 (1) | acceptedEpoch:int64 | votedFor:int64
 *                  | ensembleId:int64 | serverId:int64 | crc32c(previous 40 bytes):int32
 * </pre>
 * {@link #store} writes a temp file, fsyncs it, renames it over the old file and fsyncs the directory, so after a
 * crash the file holds the old or the new state, whole.
 *
 * @param acceptedEpoch the highest epoch this server accepted (voted in or led)
 * @param votedFor      the server voted for in {@code acceptedEpoch}, or {@link #NO_VOTE}
 * @param ensembleId    the identity of the member list (a hash of it), checked in every peer handshake
 * @param serverId      this server's id
 */
public record ConsensusMeta(long acceptedEpoch, long votedFor, long ensembleId, long serverId) {

    /** The file name inside the data directory. */
    public static final String FILE = "consensus.meta";
    /** {@code votedFor} when no vote was cast in {@code acceptedEpoch}. */
    public static final long NO_VOTE = -1;

    static final int MAGIC = 0x5A4B5243; // "ZKRC"
    static final int VERSION = 1;
    static final int BYTES = 44;
    private static final String TEMP = FILE + ".tmp";

    public ConsensusMeta {
        if (acceptedEpoch < 0) {
            throw new IllegalArgumentException("acceptedEpoch must be >= 0: " + acceptedEpoch);
        }
    }

    /** This state with a new accepted epoch and vote. */
    public ConsensusMeta withVote(long epoch, long candidate) {
        return new ConsensusMeta(epoch, candidate, ensembleId, serverId);
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.putInt(MAGIC).putInt(VERSION).putLong(acceptedEpoch).putLong(votedFor).putLong(ensembleId)
                .putLong(serverId);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, BYTES - 4);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** Decodes a file's bytes; null when they are not a whole, intact meta of a known version. */
    static ConsensusMeta decode(byte[] bytes) {
        if (bytes.length != BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, BYTES - 4);
        if (b.getInt(0) != MAGIC || b.getInt(4) != VERSION || b.getInt(BYTES - 4) != (int) crc.getValue()
                || b.getLong(8) < 0) {
            return null;
        }
        return new ConsensusMeta(b.getLong(8), b.getLong(16), b.getLong(24), b.getLong(32));
    }

    /**
     * Makes this state durable in {@code dataDir}: returns only once it is on disk (temp + fsync + rename + fsync
     * of the directory).
     *
     * @throws StorageException on I/O errors (the previous state is then still in place)
     */
    public void store(Path dataDir) {
        Path tmp = dataDir.resolve(TEMP);
        try {
            StorageFiles.createDirectories(dataDir);
            try (FileChannel ch = StorageFiles.create(tmp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(encode());
                while (b.hasRemaining()) {
                    ch.write(b, b.position());
                }
                ch.force(true);
            }
            Files.move(tmp, dataDir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new StorageException("cannot store " + dataDir.resolve(FILE) + ": " + e, e);
        }
        StorageFiles.fsyncDirectory(dataDir);
    }

    /**
     * Reads the state stored in {@code dataDir}; empty when there is no {@code consensus.meta} (a leftover temp
     * file of an interrupted {@link #store} is ignored).
     *
     * @throws ConsensusMetaException if the file exists but is damaged
     * @throws StorageException       on I/O errors
     */
    public static Optional<ConsensusMeta> load(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StorageException("cannot read " + file + ": " + e, e);
        }
        ConsensusMeta meta = decode(bytes);
        if (meta == null) {
            throw new ConsensusMetaException(file + " is damaged (" + bytes.length + " bytes, bad magic, version or"
                    + " checksum); a lost vote could let this server vote twice in one epoch, refusing to start");
        }
        return Optional.of(meta);
    }

    /**
     * The startup rule (docs/replication.md, Persistence rules, P9), the one rule every server starts by: the stored
     * state, or empty for a fresh member (no meta and an empty log). A damaged meta refuses to start. A missing one
     * next to a non-empty log refuses to start a member of an ensemble: the vote state of that history is lost, and
     * a lost vote could let it vote twice in an epoch. A standalone server has no one to vote with, so its lost (or
     * never written: data directories from before replication) vote state is harmless: it starts from the accepted
     * epoch of its last record, and stores the meta as soon as it leads.
     *
     * @param logIsEmpty true when the data directory holds no log records and no snapshot
     * @param standalone true for a standalone server (no member lines)
     * @throws ConsensusMetaException when the server must not start
     */
    public static Optional<ConsensusMeta> loadAtStart(Path dataDir, boolean logIsEmpty, boolean standalone) {
        Optional<ConsensusMeta> meta = load(dataDir);
        if (meta.isEmpty() && !logIsEmpty && !standalone) {
            throw new ConsensusMetaException("no " + FILE + " in " + dataDir + " but the log holds records; the vote "
                    + "state is lost, refusing to start (restore it, or wipe the data directory to rejoin as new)");
        }
        return meta;
    }
}
