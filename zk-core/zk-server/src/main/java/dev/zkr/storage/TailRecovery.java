package dev.zkr.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers the active (last) segment at open: finds the end of its valid records and truncates a torn tail.
 *
 * <p>A bad record is a torn tail unless the log proves it was acknowledged: batches are written one at a time and
 * the next batch only after the previous one's fsync, so a complete valid batch followed by the start of yet
 * another batch after the damage means the damaged batch had been fsynced; that is corruption of acknowledged
 * data and fails with {@link CorruptLogException}.
 */
final class TailRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(TxnLog.class);

    private TailRecovery() {
    }

    static TxnLog.RecoveredTail recover(Segment segment, FileChannel ch) throws IOException {
        LogFormat.Header header = TxnLog.readHeader(ch);
        if (header == null || header.prevZxid() != segment.prevZxid()) {
            throw new CorruptLogException("log segment " + segment.path() + " has a damaged header");
        }
        long prev = header.prevZxid();
        long size = ch.size();
        RecordScanner scanner = new RecordScanner(ch, header, header.bytes(), size, prev);
        RecordScanner.Status status;
        while ((status = scanner.next()) == RecordScanner.Status.RECORD) {
            // keep scanning
        }
        long end = scanner.position();
        if (status != RecordScanner.Status.END) {
            String reason = scanner.problem();
            if (allZero(ch, end, size)) {
                reason = "zero-filled preallocated space";
            } else if (status != RecordScanner.Status.ZEROS) {
                checkNotFollowedByBatches(segment, header, ch, scanner, size);
            }
            ch.truncate(end);
            ch.force(true);
            LOG.warn("Truncated torn tail of log segment {} at offset {}: dropped {} bytes ({})",
                    segment.path(), end, size - end, reason);
        }
        return new TxnLog.RecoveredTail(end, scanner.lastZxid(), scanner.commitMark(), header.version());
    }

    private static void checkNotFollowedByBatches(Segment segment, LogFormat.Header header, FileChannel ch,
                                                  RecordScanner bad, long size) throws IOException {
        if (bad.claimedBytes() < 0) {
            return;
        }
        long next = bad.recordStart() + bad.claimedBytes();
        if (next >= size) {
            return;
        }
        RecordScanner probe = new RecordScanner(ch, header, next, size, bad.lastZxid());
        boolean batchEnded = false;
        while (probe.next() == RecordScanner.Status.RECORD) {
            if (batchEnded) {
                throw new CorruptLogException("log segment " + segment.path() + " is corrupt at offset "
                        + bad.recordStart() + " (" + bad.problem() + ") but durable batches follow at offset "
                        + probe.recordStart() + "; acknowledged records are damaged, refusing to truncate");
            }
            batchEnded = probe.endOfBatch();
        }
    }

    private static boolean allZero(FileChannel ch, long from, long to) throws IOException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64 << 10);
        long at = from;
        while (at < to) {
            b.clear();
            b.limit((int) Math.min(b.capacity(), to - at));
            int n = ch.read(b, at);
            if (n <= 0) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (b.get(i) != 0) {
                    return false;
                }
            }
            at += n;
        }
        return true;
    }
}
