package dev.zkr.storage;

import java.io.DataInput;
import java.io.IOException;

/**
 * Reads a snapshot body back into a state object. The body's checksum is verified before the reader runs; an
 * exception from the reader marks the snapshot unreadable and the next older one is tried, so a reader must build
 * a fresh state object per call.
 *
 * @param <T> the state (for example: a data tree)
 */
@FunctionalInterface
public interface SnapshotReader<T> {

    /** Reads the body written for snapshot {@code zxid}. */
    T read(long zxid, DataInput in) throws IOException;
}
