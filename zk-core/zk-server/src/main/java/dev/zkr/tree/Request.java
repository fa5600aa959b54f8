package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;

import java.util.ArrayList;
import java.util.List;

/** A write request as {@link TxnPreparer} sees it (the server builds these from wire messages). */
public sealed interface Request {

    /**
     * Create a node; for sequential modes the path is the prefix the counter is appended to. {@code acls} as the
     * client sent it (null = {@code world:anyone} ALL; {@code auth:} is expanded by the preparer); {@code ttlMs} the
     * TTL of a TTL mode, -1 for none.
     */
    record Create(String path, byte[] data, CreateMode mode, List<Acl> acls, long ttlMs) implements Request {
        /** A node without a TTL. */
        public Create(String path, byte[] data, CreateMode mode, List<Acl> acls) {
            this(path, data, mode, acls, -1);
        }

        /** An open node. */
        public Create(String path, byte[] data, CreateMode mode) {
            this(path, data, mode, null, -1);
        }
    }

    /** Replace a node's ACL if its aversion matches (-1 = any). */
    record SetAcl(String path, List<Acl> acls, int aversion) implements Request {
    }

    /** Delete a node if its version matches (-1 = any). */
    record Delete(String path, int version) implements Request {
    }

    /** Set a node's data if its version matches (-1 = any). */
    record SetData(String path, byte[] data, int version) implements Request {
    }

    /** Version check (in a multi; also accepted alone). */
    record Check(String path, int version) implements Request {
    }

    /** Atomic multi of Create/Delete/SetData/Check requests. */
    record Multi(List<Request> ops) implements Request {
        public Multi {
            ops = List.copyOf(ops);
        }
    }

    /** Open a session (id, timeout and password chosen by the server's SessionTable). */
    record CreateSession(long sessionId, int timeoutMs, byte[] password) implements Request {
    }

    /** Close or expire a session, deleting its ephemeral nodes. */
    record CloseSession(long sessionId) implements Request {
    }

    /**
     * Server-side cleanup of an empty container (from {@link DataTree#containersToDelete()}) or of an expired TTL
     * node (from {@link DataTree#expiredTtlNodes}); for a TTL node {@code version} is the version the leader saw
     * expire, so a write prepared since keeps the node (-1 for containers).
     */
    record DeleteContainer(String path, int version) implements Request {
        /** A container's cleanup. */
        public DeleteContainer(String path) {
            this(path, -1);
        }
    }

    /**
     * A membership change the leader makes (docs/membership.md), already checked by the consensus core as the one
     * change allowed now: it becomes its membership record as it is.
     */
    record ChangeMembership(Txn.Membership next) implements Request {
    }

    /** The request for one client multi op. */
    static Request of(Op op) {
        if (op instanceof Op.Create c) {
            return new Create(c.path(), c.data(), c.mode(), c.acls(), c.ttlMs());
        } else if (op instanceof Op.Delete d) {
            return new Delete(d.path(), d.version());
        } else if (op instanceof Op.SetData s) {
            return new SetData(s.path(), s.data(), s.version());
        } else if (op instanceof Op.Check c) {
            return new Check(c.path(), c.version());
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    /** The multi request for client ops. */
    static Multi multi(List<Op> ops) {
        List<Request> requests = new ArrayList<>(ops.size());
        for (Op op : ops) {
            requests.add(of(op));
        }
        return new Multi(requests);
    }
}
