package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.EnsembleMember;
import dev.zkr.client.ZkException;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A state change as written to the txn log and applied by {@link DataTree#apply}. Txns carry absolute values
 * (the new version, the parent's new cversion, the data) so that applying is deterministic and replaying a txn
 * on a tree that already contains its effect (fuzzy snapshots) converges to the same tree.
 *
 * <p>Byte arrays inside txns are owned by the txn after construction: nobody may modify them.
 */
public sealed interface Txn {

    /**
     * Create a node.
     *
     * @param path           the full path (sequence suffix already applied)
     * @param data           the data; null as a ZooKeeper client may send it (logged as length -1, read back null)
     * @param ephemeralOwner the owning session for ephemeral nodes, else 0
     * @param container      true for CONTAINER nodes
     * @param parentCversion the parent's cversion after this create
     * @param acls           the node's ACL, validated and expanded (never {@code auth:})
     * @param ttlMs          the TTL of a TTL node in milliseconds, else 0
     */
    record CreateNode(String path, byte[] data, long ephemeralOwner, boolean container, int parentCversion,
                      List<Acl> acls, long ttlMs) implements Txn {
        public CreateNode {
            Objects.requireNonNull(path, "path");
            acls = acls == null ? Acls.OPEN_UNSAFE : List.copyOf(acls);
        }

        /** A node without a TTL. */
        public CreateNode(String path, byte[] data, long ephemeralOwner, boolean container, int parentCversion,
                          List<Acl> acls) {
            this(path, data, ephemeralOwner, container, parentCversion, acls, 0);
        }

        /** An open node ({@link Acls#OPEN_UNSAFE}). */
        public CreateNode(String path, byte[] data, long ephemeralOwner, boolean container, int parentCversion) {
            this(path, data, ephemeralOwner, container, parentCversion, Acls.OPEN_UNSAFE, 0);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CreateNode c && c.path.equals(path) && Arrays.equals(c.data, data)
                    && c.ephemeralOwner == ephemeralOwner && c.container == container
                    && c.parentCversion == parentCversion && c.acls.equals(acls) && c.ttlMs == ttlMs;
        }

        @Override
        public int hashCode() {
            return Objects.hash(path, Arrays.hashCode(data), ephemeralOwner, container, parentCversion, acls, ttlMs);
        }

        @Override
        public String toString() {
            return "CreateNode[" + path + ", " + (data == null ? "null" : data.length + " B") + ", owner=0x"
                    + Long.toHexString(ephemeralOwner) + (container ? ", container" : "")
                    + (ttlMs > 0 ? ", ttl=" + ttlMs + " ms" : "") + ", parentCversion=" + parentCversion
                    + (acls.equals(Acls.OPEN_UNSAFE) ? "" : ", acl=" + acls) + "]";
        }
    }

    /**
     * Replace a node's ACL.
     *
     * @param path     the node
     * @param acls     the new ACL, validated and expanded
     * @param aversion the node's aversion after this change
     */
    record SetAcl(String path, List<Acl> acls, int aversion) implements Txn {
        public SetAcl {
            Objects.requireNonNull(path, "path");
            acls = List.copyOf(acls);
        }
    }

    /**
     * Delete a node (the parent's pzxid becomes this zxid; its count of child creations, which numbers sequential
     * children, is unchanged; the parent's Stat.cversion still grows by one, as in ZooKeeper).
     */
    record DeleteNode(String path) implements Txn {
        public DeleteNode {
            Objects.requireNonNull(path, "path");
        }
    }

    /**
     * Replace a node's data.
     *
     * @param path    the node
     * @param data    the new data; null as a ZooKeeper client may send it
     * @param version the node's version after this change
     */
    record SetData(String path, byte[] data, int version) implements Txn {
        public SetData {
            Objects.requireNonNull(path, "path");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SetData s && s.path.equals(path) && Arrays.equals(s.data, data) && s.version == version;
        }

        @Override
        public int hashCode() {
            return Objects.hash(path, Arrays.hashCode(data), version);
        }

        @Override
        public String toString() {
            return "SetData[" + path + ", " + (data == null ? "null" : data.length + " B") + ", version=" + version + "]";
        }
    }

    /** A version check inside a multi; changes nothing (kept so the multi's results line up with its ops). */
    record Check(String path, int version) implements Txn {
        public Check {
            Objects.requireNonNull(path, "path");
        }
    }

    /** Several txns applied atomically under one zxid; ops are CreateNode, DeleteNode, SetData or Check. */
    record Multi(List<Txn> ops) implements Txn {
        public Multi {
            ops = List.copyOf(ops);
            for (Txn op : ops) {
                if (!(op instanceof CreateNode || op instanceof DeleteNode || op instanceof SetData
                        || op instanceof Check)) {
                    throw new IllegalArgumentException("not allowed in a multi: " + op);
                }
            }
        }
    }

    /** A new session. */
    record CreateSession(long sessionId, int timeoutMs, byte[] password) implements Txn {
        public CreateSession {
            Objects.requireNonNull(password, "password");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CreateSession c && c.sessionId == sessionId && c.timeoutMs == timeoutMs
                    && Arrays.equals(c.password, password);
        }

        @Override
        public int hashCode() {
            return Objects.hash(sessionId, timeoutMs, Arrays.hashCode(password));
        }

        @Override
        public String toString() {
            return "CreateSession[0x" + Long.toHexString(sessionId) + ", timeoutMs=" + timeoutMs + "]";
        }
    }

    /**
     * End a session (close or expiry): delete every node the session owns when the txn is applied, in path order.
     * The paths are not listed: the applying tree derives them from its ephemeral index, so the txn stays a few
     * bytes however many ephemerals the session has (a list could outgrow the log's record limit — ZooKeeper's
     * ZOOKEEPER-3496), and every replica applying the same log deletes the same nodes.
     */
    record CloseSession(long sessionId) implements Txn {
    }

    /**
     * A request that failed validation but was still sequenced (optional: the server may answer failures directly
     * instead). Applying it changes nothing; the result carries the error.
     *
     * @param code       the error
     * @param path       the path it concerns, or null
     * @param multiCodes for a failed multi, the per-op codes (OK, the failing code, RUNTIME_INCONSISTENCY); else empty
     */
    record Error(ZkException.Code code, String path, List<ZkException.Code> multiCodes) implements Txn {
        public Error {
            Objects.requireNonNull(code, "code");
            multiCodes = List.copyOf(multiCodes);
        }
    }

    /**
     * The start of an epoch: the {@code EPOCH} record at zxid (epoch, 0) that the epoch's leader logs before any
     * txn of its own (Zab's NEWLEADER; docs/replication.md, Zxids and epochs). Committing it commits every record
     * before it. Applying it changes nothing but the tree's last zxid.
     *
     * @param epoch    the epoch it starts (the high 32 bits of its zxid)
     * @param leaderId the server that leads the epoch
     */
    record NewEpoch(long epoch, int leaderId) implements Txn {
    }

    /**
     * A membership record (docs/membership.md): the ensemble's members from this zxid on, each with its role and
     * addresses, so that a server reaches a member it never had in its configuration. In force on every replica from
     * its append (the consensus core reads it through the server's membership codec); applying it changes nothing but
     * the tree's last zxid and the membership the tree's snapshots record.
     *
     * @param members every member, sorted by id
     */
    record Membership(List<EnsembleMember> members) implements Txn {
        public Membership {
            members = List.copyOf(members);
            if (members.stream().noneMatch(m -> m.role() == EnsembleMember.Role.VOTER)) {
                throw new IllegalArgumentException("a membership needs at least one voter: " + members);
            }
            if (members.stream().map(EnsembleMember::id).distinct().count() != members.size()) {
                throw new IllegalArgumentException("a server id twice in " + members);
            }
            members = members.stream().sorted(java.util.Comparator.comparingInt(EnsembleMember::id)).toList();
        }

        /** The ids of the members of {@code role}, ascending. */
        public List<Integer> ids(EnsembleMember.Role role) {
            return members.stream().filter(m -> m.role() == role).map(EnsembleMember::id).toList();
        }

        /** Member {@code id}, or null. */
        public EnsembleMember member(int id) {
            return members.stream().filter(m -> m.id() == id).findFirst().orElse(null);
        }
    }
}
