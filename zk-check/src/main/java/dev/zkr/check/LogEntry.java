package dev.zkr.check;

import java.util.Objects;

/**
 * One change in the final committed log. A transaction that changes several paths (a multi, a session close
 * deleting ephemerals) is one entry per path with the same zxid.
 *
 * @param zxid  the transaction's zxid
 * @param path  the znode it changed
 * @param op    what it did, for reports ({@code "create"}, {@code "setData"}, {@code "delete"}, ...)
 * @param after the node after the change ({@link Znode#ABSENT} after a delete)
 */
public record LogEntry(long zxid, String path, String op, Znode after) {

    public LogEntry {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(after, "after");
    }
}
