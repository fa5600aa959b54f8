package dev.zkr.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Iterates log records above a zxid across segments, oldest first. Any damage met on the way (bad record, gap
 * between segments) throws {@link CorruptLogException}; I/O errors throw {@link StorageException}. Not thread-safe;
 * close it when done.
 */
public final class LogReader implements Iterator<LogRecord>, AutoCloseable {

    private final List<Segment> segments;
    private final long activeEnd;
    private final long fromZxid;
    private int index = -1;
    private FileChannel channel;
    private RecordScanner scanner;
    private long lastZxid = -1;
    private LogRecord next;
    private boolean closed;

    LogReader(List<Segment> segments, long activeEnd, long fromZxid) {
        this.segments = segments;
        this.activeEnd = activeEnd;
        this.fromZxid = fromZxid;
    }

    @Override
    public boolean hasNext() {
        if (next == null && !closed) {
            next = advance();
        }
        return next != null;
    }

    @Override
    public LogRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        LogRecord r = next;
        next = null;
        return r;
    }

    private LogRecord advance() {
        try {
            while (true) {
                if (scanner == null && !openNext()) {
                    return null;
                }
                Segment seg = segments.get(index);
                RecordScanner.Status status = scanner.next();
                switch (status) {
                    case RECORD -> {
                        lastZxid = scanner.zxid();
                        if (scanner.zxid() > fromZxid) {
                            return new LogRecord(scanner.zxid(), scanner.payload());
                        }
                    }
                    case END -> {
                        lastZxid = scanner.lastZxid();
                        closeSegment();
                    }
                    default -> throw new CorruptLogException("log segment " + seg.path() + " is corrupt at offset "
                            + scanner.recordStart() + ": " + scanner.problem());
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot read log segment " + segments.get(index).path() + ": " + e, e);
        }
    }

    private boolean openNext() throws IOException {
        if (index + 1 >= segments.size()) {
            return false;
        }
        index++;
        Segment seg = segments.get(index);
        if (lastZxid >= 0 && lastZxid != seg.prevZxid()) {
            throw new CorruptLogException("gap in the log: the segment before " + seg.path() + " ends at zxid 0x"
                    + Long.toHexString(lastZxid) + " but " + seg.name() + " continues after 0x"
                    + Long.toHexString(seg.prevZxid()));
        }
        channel = FileChannel.open(seg.path(), StandardOpenOption.READ);
        LogFormat.Header header = TxnLog.readHeader(channel);
        if (header == null || header.prevZxid() != seg.prevZxid()) {
            throw new CorruptLogException("log segment " + seg.path() + " has a damaged header");
        }
        boolean active = index == segments.size() - 1;
        long end = active ? activeEnd : channel.size();
        scanner = new RecordScanner(channel, header, header.bytes(), end, seg.prevZxid());
        return true;
    }

    private void closeSegment() throws IOException {
        scanner = null;
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }

    @Override
    public void close() {
        closed = true;
        next = null;
        try {
            closeSegment();
        } catch (IOException e) {
            throw new StorageException("cannot close log segment: " + e, e);
        }
    }
}
