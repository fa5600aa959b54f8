package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkException;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * ZooKeeper's system nodes {@code /zookeeper}, {@code /zookeeper/config} and {@code /zookeeper/quota}, presented as a
 * ZooKeeper 3.9 server presents them (checked against a real one, standalone and a 3-server ensemble from a static
 * configuration): all-zero Stats; {@code /zookeeper} lists {@code config} and {@code quota} (cversion -2, as
 * ZooKeeper's formula gives for two children it never counted as created); {@code /zookeeper/config} is readable by
 * anyone and writable by no one ({@code world:anyone} READ, aversion -1), empty on a standalone server and the
 * membership on an ensemble member ({@code server.N=host:port:port:participant} lines and {@code version=0}, version
 * -1, mtime the server's start); the root counts {@code zookeeper} among its children (numChildren + 1, so cversion -1).
 *
 * <p>They are not in the tree: nothing of them is logged, replicated or snapshotted, so data directories and the
 * replication protocol are unchanged. They are shown only while the tree has no node of its own at
 * {@code /zookeeper} (a data directory written before may hold one: then the tree's nodes are served as before).
 * Writes: creating one of them is NODE_EXISTS and deleting one BAD_ARGUMENTS, as ZooKeeper answers; writing
 * {@code /zookeeper/config} or under it NO_AUTH (its ACL); other writes to {@code /zookeeper} and
 * {@code /zookeeper/quota} (data, ACL, children), which ZooKeeper takes, BAD_ARGUMENTS: zkr has no quotas, and
 * keeps the nodes read-only (docs/zookeeper-compatibility.md).
 *
 * <p>Immutable; pure.
 */
public final class SystemNodes {

    public static final String ZOOKEEPER = "/zookeeper";
    public static final String CONFIG = "/zookeeper/config";
    public static final String QUOTA = "/zookeeper/quota";

    /** ZooKeeper's {@code Ids.READ_ACL_UNSAFE}, the ACL of {@code /zookeeper/config}. */
    private static final List<Acl> READ_ONLY = List.of(new Acl(Perms.READ, new Id("world", "anyone")));
    private static final Stat ZERO = new Stat(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    private final byte[] config;
    private final Stat configStat;
    /** An ensemble member's start time (its static config's mtime); -1 for a standalone server's. */
    private final long startTime;

    private SystemNodes(byte[] config, Stat configStat, long startTime) {
        this.config = config;
        this.configStat = configStat;
        this.startTime = startTime;
    }

    /** A standalone server's: {@code /zookeeper/config} empty, its Stat zero but aversion -1. */
    public static SystemNodes standalone() {
        return new SystemNodes(new byte[0], new Stat(0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0), -1);
    }

    /**
     * An ensemble member's: {@code /zookeeper/config} holds {@code config} (ZooKeeper's {@code QuorumMaj} text),
     * version and aversion -1, mtime {@code startTime} (each server's own, as ZooKeeper's).
     */
    public static SystemNodes ensemble(String config, long startTime) {
        byte[] bytes = config.getBytes(StandardCharsets.UTF_8);
        return new SystemNodes(bytes, new Stat(0, 0, 0, 0, startTime, -1, 0, -1, 0, bytes.length, 0), startTime);
    }

    /**
     * The nodes as shown once the ensemble changed shape ({@code applied}: the membership record the tree applied
     * last; null while it never changed: these nodes as they are, as on a standalone server): {@code /zookeeper/config}
     * holds that membership ({@link #membership(Txn.Membership, long)}), its Stat's mzxid the record's zxid and its
     * mtime the record's time (this server's start when unknown: a record read from a snapshot, as ZooKeeper shows
     * after a restart), version and aversion -1 as ZooKeeper's reconfig leaves them.
     */
    public SystemNodes over(DataTree.AppliedMembership applied) {
        if (applied == null || startTime < 0) {
            return this;
        }
        return ensembleAfter(applied, startTime);
    }

    /** {@link #over} for a record whose time is known (a server's start time does not matter then). */
    public static SystemNodes ensembleAfter(DataTree.AppliedMembership applied, long startTime) {
        byte[] bytes = membership(applied.membership(), applied.zxid()).getBytes(StandardCharsets.UTF_8);
        long mtime = applied.time() > 0 ? applied.time() : startTime;
        return new SystemNodes(bytes, new Stat(0, applied.zxid(), 0, 0, mtime, -1, 0, -1, 0, bytes.length, 0),
                startTime);
    }

    /**
     * ZooKeeper's text of a membership record of zxid {@code version}: a line per member, {@code
     * server.N=host:peerPort:clientPort:participant;clientPort} for a voter, {@code :observer} for a learner or an
     * observer (neither votes), the election field holding the client port as in {@link #membership(List)}, then
     * {@code version=} and the zxid in hex, as ZooKeeper writes a dynamic configuration. The client part
     * ({@code ;clientPort}, which Curator's EnsembleTracker builds its connect string from) is written only when
     * every member's client port is known (a server configured from zoo.cfg lines without a client part knows only
     * its own): a list with some members left out would shrink a client's connect string, one without any leaves it
     * as it is.
     */
    public static String membership(Txn.Membership members, long version) {
        boolean clientParts = members.members().stream().allMatch(m -> m.clientPort() > 0);
        StringBuilder sb = new StringBuilder();
        for (dev.zkr.client.EnsembleMember m : members.members()) {
            String host = m.host().indexOf(':') >= 0 && !m.host().startsWith("[") ? "[" + m.host() + "]" : m.host();
            sb.append("server.").append(m.id()).append('=').append(host).append(':').append(m.peerPort())
                    .append(':').append(m.clientPort()).append(m.role() == dev.zkr.client.EnsembleMember.Role.VOTER
                            ? ":participant" : ":observer");
            if (clientParts) {
                sb.append(';').append(m.clientPort());
            }
            sb.append('\n');
        }
        return sb.append("version=").append(Long.toHexString(version)).toString();
    }

    /**
     * ZooKeeper's text of a static membership: a {@code server.N=host:peerPort:clientPort:participant} line per member
     * (zkr's member line in ZooKeeper's shape: its peer port in the quorum field, and in the election field, which
     * zkr has no use for, the member's client port: ZooKeeper's parser, which Curator's EnsembleTracker runs on this
     * text on every connection, refuses a line whose quorum and election ports are equal; no client address, which
     * ZooKeeper leaves out of a static configuration too, so EnsembleTracker keeps its connect string), then
     * {@code version=0}.
     */
    public static String membership(List<Member> members) {
        StringBuilder sb = new StringBuilder();
        for (Member m : members) {
            sb.append("server.").append(m.id()).append('=').append(m.host()).append(':').append(m.peerPort())
                    .append(':').append(m.clientPort()).append(":participant\n");
        }
        return sb.append("version=0").toString();
    }

    /** One member of an ensemble, as the membership text needs it. */
    public record Member(int id, String host, int peerPort, int clientPort) {
    }

    /** Whether the system nodes are shown over this tree (it has no {@code /zookeeper} of its own). */
    public boolean shownOver(DataTree tree) {
        return !tree.contains(ZOOKEEPER);
    }

    /** Whether {@code path} is one of the three. */
    public static boolean isSystem(String path) {
        return ZOOKEEPER.equals(path) || CONFIG.equals(path) || QUOTA.equals(path);
    }

    /** The node's Stat (path one of the three). */
    public Stat stat(String path) {
        return switch (path) {
            case ZOOKEEPER -> new Stat(0, 0, 0, 0, 0, 0, -2, 0, 0, 0, 2);
            case CONFIG -> configStat;
            default -> ZERO;
        };
    }

    /** The node's data (a copy). */
    public byte[] data(String path) {
        return CONFIG.equals(path) ? config.clone() : new byte[0];
    }

    /** The node's ACL. */
    public List<Acl> acl(String path) {
        return CONFIG.equals(path) ? READ_ONLY : Acls.OPEN_UNSAFE;
    }

    /** The node's children, in ZooKeeper's order. */
    public List<String> children(String path) {
        return ZOOKEEPER.equals(path) ? List.of("config", "quota") : List.of();
    }

    /** The number of the node's descendants. */
    public int descendants(String path) {
        return ZOOKEEPER.equals(path) ? 2 : 0;
    }

    /** The root's Stat as shown: {@code zookeeper} counted among its children. */
    public static Stat root(Stat s) {
        return new Stat(s.czxid(), s.mzxid(), s.pzxid(), s.ctime(), s.mtime(), s.version(), s.cversion() - 1,
                s.aversion(), s.ephemeralOwner(), s.dataLength(), s.numChildren() + 1);
    }

    /**
     * Why a write to {@code path} is refused, or null if it is not about the system nodes. {@code create} says
     * whether it creates {@code path} (then its parent matters).
     */
    public static Refusal refusal(String path, boolean create, boolean delete) {
        if (isSystem(path)) {
            if (create) {
                return new Refusal(ZkException.Code.NODE_EXISTS, null);
            }
            if (delete) {
                return new Refusal(ZkException.Code.BAD_ARGUMENTS, "ZooKeeper's system node " + path
                        + " cannot be deleted");
            }
            return CONFIG.equals(path) ? new Refusal(ZkException.Code.NO_AUTH, null)
                    : new Refusal(ZkException.Code.BAD_ARGUMENTS, path + " is read-only on zkr (no quotas)");
        }
        if (create) {
            String parent = DataTree.parentOf(path);
            if (CONFIG.equals(parent)) {
                return new Refusal(ZkException.Code.NO_AUTH, null);
            }
            if (isSystem(parent)) {
                return new Refusal(ZkException.Code.BAD_ARGUMENTS, parent + " is read-only on zkr (no quotas)");
            }
        }
        return null;
    }

    /** A refused write: its code and detail (null: none). */
    public record Refusal(ZkException.Code code, String message) {
    }
}
