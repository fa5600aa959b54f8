package dev.zkr.check;

import java.util.Objects;

/**
 * A successful reply as one session received it. Lists of replies hold each session's replies in the order they
 * arrived (sessions may interleave).
 *
 * @param session the session
 * @param xid     the request's number in the session (requests are numbered in the order sent)
 * @param kind    a plain read or an acknowledged write
 * @param path    the znode
 * @param zxid    the zxid in the reply header: the write's own zxid, or the zxid the read was served at
 * @param node    a read's result ({@link Znode#ABSENT} for a NoNode answer), or the node the write left as the
 *                client knows it (data it wrote, version from its Stat; absent after a delete); {@code null} when
 *                the client does not know it
 */
public record SessionReply(long session, long xid, Kind kind, String path, long zxid, Znode node) {

    /** What was answered. */
    public enum Kind {
        /** A plain (not synced) read. */
        READ,
        /** An acknowledged write. */
        WRITE
    }

    public SessionReply {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(path, "path");
        if (kind == Kind.READ) {
            Objects.requireNonNull(node, "a read's node");
        }
    }

    /** A read of {@code path} served at {@code zxid} that returned {@code node}. */
    public static SessionReply read(long session, long xid, String path, long zxid, Znode node) {
        return new SessionReply(session, xid, Kind.READ, path, zxid, node);
    }

    /** An acknowledged write of {@code path} at {@code zxid} that left {@code node}. */
    public static SessionReply write(long session, long xid, String path, long zxid, Znode node) {
        return new SessionReply(session, xid, Kind.WRITE, path, zxid, node);
    }

    @Override
    public String toString() {
        return "session " + session + " xid " + xid + " " + kind.name().toLowerCase() + " " + path + " @" + zxid
                + (node == null ? "" : " " + node);
    }
}
