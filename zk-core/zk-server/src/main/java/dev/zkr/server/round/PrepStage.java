package dev.zkr.server.round;

import dev.zkr.client.Op;
import dev.zkr.client.ZkException;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;
import dev.zkr.tree.TxnPreparer;
import dev.zkr.consensus.Zxid;
import dev.zkr.wire.Message;

import java.util.Arrays;
import java.util.List;
import dev.zkr.client.Id;

/**
 * The Prep stage: turns a write into a sequenced {@link Pending} — validated against the applied tree plus the
 * pending changes by the {@link TxnPreparer}, stamped with the next zxid of its epoch and the time of its {@link TxnClock}. A request that fails
 * validation becomes a txn-less item that answers with its error in order — or, on an ensemble member, an error txn
 * that goes through the replication like a write.
 */
final class PrepStage {

    private final TxnPreparer preparer;
    /** The txn times: the injected wall clock, never below the newest txn time applied, logged or handed out. */
    private final TxnClock clock;
    private long epoch;
    private long lastZxid;
    private final boolean failuresThroughLog;
    /** What plans a membership change's record (the replication); null: changes are refused (RECONFIG_DISABLED). */
    private Replication memberships;
    /** ZooKeeper's reconfig as a membership change; null where membership changes are refused. */
    private ZooKeeperReconfig zooKeeperReconfig;

    /**
     * @param epoch    the epoch of the zxids this stage hands out ({@link Zxid}; a standalone server's is 1)
     * @param lastZxid the last zxid in the tree or the log: the next txn gets {@code Zxid.next(lastZxid, epoch)}
     * @param clock    the txn times (a server passes the system clock; the simulator its own, with jumps)
     */
    PrepStage(TxnPreparer preparer, TxnClock clock, long epoch, long lastZxid) {
        this(preparer, clock, epoch, lastZxid, false);
    }

    /**
     * @param failuresThroughLog an ensemble member's stage: a client write that fails validation against the tree
     *                           becomes an error txn ({@link Txn.Error}), logged and committed like any write and
     *                           answered when applied — ZooKeeper's way. Answered at once, a refusal from a leader
     *                           that was deposed without knowing it yet could contradict what the new leader had
     *                           committed (server simulator seed 21680: BAD_VERSION for a node already deleted).
     *                           A standalone server cannot be deposed and answers at once.
     */
    PrepStage(TxnPreparer preparer, TxnClock clock, long epoch, long lastZxid, boolean failuresThroughLog) {
        this.preparer = preparer;
        this.clock = clock;
        this.epoch = epoch;
        this.lastZxid = lastZxid;
        this.failuresThroughLog = failuresThroughLog;
    }

    /** Membership changes are planned by {@code replication} ({@link Replication#membershipAfter}). */
    void planMembershipWith(Replication replication) {
        this.memberships = replication;
    }

    /** As above, with ZooKeeper's reconfig too ({@code tree}: its membership from a snapshot gives the version). */
    void planMembershipWith(Replication replication, dev.zkr.tree.DataTree tree) {
        planMembershipWith(replication);
        this.zooKeeperReconfig = new ZooKeeperReconfig(replication, tree);
    }

    /** A client write (create, delete, setData, multi). */
    Pending write(Connection c, Message.Request r) {
        return write(Pending.Kind.CLIENT, c, r, c.sessionId, c.authIds, acked(c.exactlyOnce, c.acked, r));
    }

    /**
     * The acknowledgement a write's txn carries: its connection's (zkr's protocol), or the write's own xid for a
     * client that never sends a write again (ZooKeeper's protocol), so no reply of its session is kept past its own.
     */
    static int acked(boolean exactlyOnce, int connectionAcked, Message.Request r) {
        return exactlyOnce ? connectionAcked : r.xid();
    }

    /**
     * A write of session {@code sessionId} (a local client's, or forwarded: {@code c} null), checked against the
     * ACLs with the ids its connection authenticated as.
     */
    Pending write(Pending.Kind kind, Connection c, Message.Request r, long sessionId, List<Id> authIds, int acked) {
        Request request;
        try {
            request = r instanceof Message.ReconfigRequest rc ? membershipChange(rc, authIds)
                    : r instanceof Message.ZooKeeperReconfigRequest zr ? membershipChange(zr, authIds) : toRequest(r);
        } catch (ZkException e) { // its detail only: the reply carries the code, the client's exception names it
            String prefix = e.code().name() + ": ";
            String detail = e.getMessage().startsWith(prefix) ? e.getMessage().substring(prefix.length())
                    : e.getMessage();
            return new Pending(kind, c, r, null, null, Prepared.Failed.of(e.code(), null, detail));
        } catch (RuntimeException e) {
            return new Pending(kind, c, r, null, null,
                    Prepared.Failed.of(ZkException.Code.BAD_ARGUMENTS, null, e.getMessage()));
        }
        return prepare(kind, c, r, request, sessionId, authIds, acked);
    }

    /** This server leads {@code epoch} from now on: its txns are (epoch, 1), (epoch, 2), ... */
    void startEpoch(long newEpoch) {
        if (newEpoch != epoch || Zxid.epoch(lastZxid) != newEpoch) {
            epoch = newEpoch;
            lastZxid = Zxid.of(newEpoch, 0);
        }
    }

    /** The epoch whose zxids this stage hands out. */
    long epoch() {
        return epoch;
    }

    /** This server stopped leading: the pending changes of its undecided txns are forgotten. */
    void reset() {
        preparer.applied(Long.MAX_VALUE);
    }

    /**
     * Any request, for the given kind; a failure yields a txn-less item carrying the error. The txn's header names
     * the client request ({@code sessionId}, {@code r.xid()}), or carries {@link TxnHeader#NO_XID} when the server
     * made the request itself ({@code r} null).
     */
    Pending prepare(Pending.Kind kind, Connection c, Message.Request r, Request request, long sessionId) {
        return prepare(kind, c, r, request, sessionId, null, TxnHeader.NO_XID);
    }

    /** The time a txn prepared now would carry. */
    long txnTime() {
        return clock.now();
    }

    /**
     * As above; {@code authIds} null for the server's own (trusted) requests; {@code acked} the client's
     * acknowledgement for the txn's header ({@link TxnHeader#acked()}).
     */
    Pending prepare(Pending.Kind kind, Connection c, Message.Request r, Request request, long sessionId,
                    List<Id> authIds, int acked) {
        long zxid = Zxid.next(lastZxid, epoch);
        long time = clock.now();
        TxnHeader header = r == null ? new TxnHeader(zxid, time, sessionId, TxnHeader.NO_XID)
                : new TxnHeader(zxid, time, sessionId, r.xid(), acked);
        Prepared prepared = preparer.prepare(request, sessionId, authIds, zxid);
        if (prepared instanceof Prepared.Ok ok) {
            lastZxid = zxid;
            clock.observe(time);
            return new Pending(kind, c, r, header, ok.txn(), null);
        }
        Prepared.Failed failed = (Prepared.Failed) prepared;
        // an exactly-once connection's failure is logged on a standalone server too: its reply is saved with the
        // session's writes, so the same write sent again gets it (docs/exactly-once.md)
        boolean logged = failuresThroughLog || (c != null && c.exactlyOnce);
        if (logged && r != null && (kind == Pending.Kind.CLIENT || kind == Pending.Kind.FORWARDED)) {
            lastZxid = zxid;
            clock.observe(time);
            return new Pending(kind, c, r, header, failed.toTxn(), failed); // the detail text for a local client
        }
        return new Pending(kind, c, r, null, null, failed);
    }

    /** Releases the pending changes of an applied txn (and remembers its time: the next txn's is not older). */
    void applied(long zxid, long time) {
        preparer.applied(zxid);
        clock.observe(time);
    }

    /** A record this server did not sequence reached its apply stream (a leader's, the recovered tail, EPOCH). */
    void logged(long time) {
        clock.observe(time);
    }

    long lastZxid() {
        return lastZxid;
    }

    /**
     * A client's membership change (docs/membership.md): the superuser's only, planned by the replication as the one
     * change allowed now.
     *
     * @throws ZkException NO_AUTH, RECONFIG_DISABLED, or the replication's refusal
     */
    private Request membershipChange(Message.ReconfigRequest r, List<Id> authIds) {
        checkMayChangeMembership(authIds);
        if (r.change() == null) {
            throw new ZkException.BadArguments(null, "no change");
        }
        return new Request.ChangeMembership(memberships.membershipAfter(r.change()));
    }

    /**
     * ZooKeeper's reconfig (the ZooKeeper port's, served where {@code reconfigEnabled}): UNIMPLEMENTED on a
     * standalone server, as ZooKeeper answers; the superuser's only, as ZooKeeper guards it (its /zookeeper/config is
     * writable by no one else; ZooKeeper checks that last, zkr first: a session that may not change the membership
     * learns nothing of it), then one server added, promoted or removed ({@link ZooKeeperReconfig}).
     */
    private Request membershipChange(Message.ZooKeeperReconfigRequest r, List<Id> authIds) {
        if (zooKeeperReconfig == null) { // ZooKeeper's standalone server answers so, before its ACL check
            throw new ZkException.Unimplemented(null, "a standalone server's membership cannot change");
        }
        checkMayChangeMembership(authIds);
        return new Request.ChangeMembership(memberships.membershipAfter(zooKeeperReconfig.change(r)));
    }

    private void checkMayChangeMembership(List<Id> authIds) {
        if (authIds != null && authIds.stream().noneMatch(id -> "super".equals(id.scheme()))) {
            throw new ZkException.NoAuth(null, "membership changes are the superuser's (superDigest or "
                    + "ssl.x509SuperUser)");
        }
        if (memberships == null) {
            throw new ZkException.ReconfigDisabled(null, "a standalone server's membership cannot change");
        }
    }

    static boolean isWrite(Message.Request r) {
        return r instanceof Message.ReconfigRequest || r instanceof Message.ZooKeeperReconfigRequest
                || r instanceof Message.CreateRequest
                || r instanceof Message.DeleteRequest
                || r instanceof Message.SetDataRequest || r instanceof Message.MultiRequest
                || r instanceof Message.CreateAclRequest || r instanceof Message.SetAclRequest
                || r instanceof Message.CreateTtlRequest;
    }

    private static Request toRequest(Message.Request r) {
        if (r instanceof Message.CreateRequest c) {
            return new Request.Create(c.path(), c.data(), require(c.mode()));
        } else if (r instanceof Message.CreateAclRequest c) {
            return new Request.Create(c.path(), c.data(), require(c.mode()),
                    c.acls() == null ? List.of() : Arrays.asList(c.acls()));
        } else if (r instanceof Message.CreateTtlRequest c) {
            return new Request.Create(c.path(), c.data(), require(c.mode()),
                    c.acls() == null ? null : Arrays.asList(c.acls()), c.ttlMs());
        } else if (r instanceof Message.SetAclRequest s) {
            return new Request.SetAcl(s.path(), s.acls() == null ? List.of() : Arrays.asList(s.acls()),
                    s.aversion());
        } else if (r instanceof Message.DeleteRequest d) {
            return new Request.Delete(d.path(), d.version());
        } else if (r instanceof Message.SetDataRequest s) {
            return new Request.SetData(s.path(), s.data(), s.version());
        } else if (r instanceof Message.MultiRequest m) {
            if (m.ops() == null) {
                throw new IllegalArgumentException("multi without ops");
            }
            return Request.multi(Arrays.asList(m.ops()).stream().map(PrepStage::nonNullOp).map(PrepStage::fixOp)
                    .toList());
        }
        throw new IllegalArgumentException("not a write: " + r.getClass().getSimpleName());
    }

    private static Op nonNullOp(Op op) {
        if (op == null) {
            throw new IllegalArgumentException("null op in multi");
        }
        return op;
    }

    private static Op fixOp(Op op) {
        if (op instanceof Op.Create c) {
            return new Op.Create(c.path(), c.data(), require(c.mode()), c.acls(), c.ttlMs());
        }
        return op;
    }

    private static <T> T require(T mode) {
        if (mode == null) {
            throw new IllegalArgumentException("create mode missing");
        }
        return mode;
    }
}
