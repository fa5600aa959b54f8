package dev.zkr.storage;

/** A loaded snapshot: the zxid it was taken at (when it started) and the state read from it. */
public record Snapshot<T>(long zxid, T state) {
}
