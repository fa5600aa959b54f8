package dev.zkr.storage;

import java.io.DataOutput;
import java.io.IOException;

/** Writes the body of a snapshot (for example: the serialized data tree and session table). */
@FunctionalInterface
public interface SnapshotWriter {

    /** Writes the body; the stream is buffered, checksummed and must not be closed. */
    void write(DataOutput out) throws IOException;
}
