package dev.zkr.server.replication;

import dev.zkr.server.round.LogStage;
import dev.zkr.server.round.PeerLink;
import dev.zkr.server.round.Replication;
import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Envelope;
import dev.zkr.consensus.ReplicaMessage;
import dev.zkr.consensus.Membership;
import dev.zkr.consensus.Meta;
import dev.zkr.consensus.ReadState;
import dev.zkr.consensus.Ready;
import dev.zkr.consensus.Replica;
import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.server.peer.SnapshotChunk;
import dev.zkr.server.peer.SnapshotRequest;
import dev.zkr.storage.LogStore;
import dev.zkr.storage.SnapshotReceiver;
import dev.zkr.storage.SnapshotSender;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.storage.TxnLog;
import dev.zkr.client.ZkException;
import dev.zkr.tree.DataTree;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The {@link Replication} that drives a consensus {@link Replica} inside the rounds (docs/replication.md, The core and
 * its driver; named a driver, not a stage: it is the round's replication, not one of its stages): sequenced txns go in through {@code propose}, the log's durability notices through
 * {@code localDurable}, peer messages through {@code step}, time through {@code tick}, and each round executes the
 * replica's {@link Ready} in its order — meta persisted first (P1), truncation, records to the {@link LogStage}
 * (async: their durability comes back as a notice, P4), messages to the peers, the commit point to the core and,
 * riding on the next fsync, to the log's commit mark ({@link LogStore#recordCommitMark}). The log is a
 * {@link LogStore} and the replica's view of it a {@link DrivenLogView}: a {@link TxnLog} and a {@link TxnLogView} in
 * a server, in-memory ones in the whole-server simulator, which drives this same class.
 *
 * <p>The records the core did not sequence (the uncommitted tail recovered at start, records received from a
 * leader, EPOCH records) go to the core's apply stream, applied once committed; a truncation cuts the stream too.
 * The replica's {@code EPOCH} record (an empty {@link Entry} at (e,0)) is logged and applied as
 * {@link Txn.NewEpoch}.
 */
public final class ReplicaDriver implements Replication {

    private static final Logger log = LoggerFactory.getLogger(ReplicaDriver.class);

    /** Persists the replica's metadata durably (temp + fsync + rename + dir fsync) before anything depends on it. */
    public interface MetaStore {
        void store(Meta meta);
    }

    /**
     * What SNAP needs: the snapshot files (a leader sends its newest, a follower installs a received one) and the
     * log an install restarts ({@link SnapshotReceiver}: the {@link TxnLog}, or the simulator's). Null for a server
     * that never takes part in SNAP (simulator seeds without snapshots: no purge, no follower behind a log's start).
     */
    public record Snapshots(SnapshotStore store, SnapshotReceiver.Log log) {
    }

    /**
     * Ticks counted at most per round. A server that did not run for longer (a GC pause, an overloaded machine, a
     * SIGSTOP) drops the ticks it missed, as a Go ticker drops the ticks of a slow receiver (etcd's model): its own
     * pause is not taken for its peers' silence, and the messages that arrived meanwhile are handled first.
     */
    static final int MAX_TICKS_PER_ROUND = 5;

    private final Replica replica;
    private final DrivenLogView view;
    private final LogStage logStage;
    private final LogStore logStore;
    private final MetaStore metaStore;
    private final PeerLink peers;
    private final LongSupplier clock;
    private final boolean alone;
    /** The recovered tail (logged, not known committed), handed to the apply stream in the first round. */
    private List<TxnCodec.Entry> tail;
    /** Zxids this server proposed that the log has not been handed yet (the core's stream holds them already). */
    private final ArrayDeque<Long> ownProposals = new ArrayDeque<>();
    private long markedCommit;
    private RoleInfo role;
    private long nextTickAt;
    private final int maxTicksPerRound;
    /** SNAP: where snapshots live and the log an install restarts; null: no SNAP. */
    private final Snapshots snapshots;
    /** Follower: the snapshot being received, or null (volatile: tests ask from their thread whether it is set). */
    private volatile SnapshotReceiver<DataTree> receiving;
    private int receivingFrom = -1;
    private long lastChunkAt;
    private long lastAskedAt;
    /** Follower: a transfer without a chunk for this long is given up (two election timeouts, at least 2 s). */
    private final long abandonInstallMs;
    /** Snapshot transfers given up since start (read by any thread: tests). */
    private volatile int abortedInstalls;
    /** Snapshot chunks ignored as stale copies of one asked for twice (read by any thread: tests). */
    private volatile int staleChunks;
    /** Follower: records of the Readies after the install, held until the snapshot is in place (they follow it). */
    private final List<Entry> afterInstall = new ArrayList<>();
    /** Leader: the snapshot file each follower is fetching, open while it does. */
    private final Map<Integer, SnapshotSender> sending = new HashMap<>();
    private long now;
    /** The highest durability notice not yet handed to the replica. */
    private long pendingDurable;
    /** Snapshots installed from a leader since start (read by any thread: tests and metrics). */
    private volatile int installs;
    /** Times this server's proposals until they commit (metrics), or null. */
    private CommitTimer commitTimer;
    /** The members' addresses and roles (a log with membership records), or null: the static members only. */
    private final Members members;
    /** The current and committed membership the peer links were last set for. */
    private Membership linkedCurrent;
    private Membership linkedCommitted;
    /** The committed membership before {@link #linkedCommitted}, whose members keep their links one change longer. */
    private Membership previousCommitted;

    /**
     * @param replica   a replica recovered from {@code view}
     * @param tail      the records after what recovery applied, in zxid order
     * @param peers     where messages go (unused by a single member)
     * @param clock     the time an EPOCH record carries
     * @param snapshots what SNAP needs, or null if this server never takes part in one
     * @param members   the members' addresses and roles, read from the membership records, or null for a server
     *                  whose members are the static ones (the whole-server simulator)
     */
    public ReplicaDriver(Replica replica, DrivenLogView view, LogStage logStage, LogStore logStore, MetaStore metaStore,
                     List<TxnCodec.Entry> tail, PeerLink peers, LongSupplier clock, int electionTicks,
                     Snapshots snapshots, Members members) {
        this.members = members;
        this.snapshots = snapshots;
        this.replica = replica;
        this.view = view;
        this.logStage = logStage;
        this.logStore = logStore;
        this.metaStore = metaStore;
        this.tail = List.copyOf(tail);
        this.peers = peers;
        this.clock = clock;
        this.markedCommit = replica.commitZxid();
        this.role = replica.roleInfo();
        this.alone = peers == PeerLink.NONE;
        this.maxTicksPerRound = MAX_TICKS_PER_ROUND;
        this.abandonInstallMs = Math.max(2000L, 2L * electionTicks * TICK_MS);
    }

    /** The epoch of the replica as built: the one a single member leads. */
    public long epoch() {
        return replica.roleInfo().epoch();
    }

    @Override
    public void append(TxnHeader header, Txn txn) {
        replica.propose(header.zxid(), TxnCodec.encode(header, txn));
        ownProposals.addLast(header.zxid());
        if (commitTimer != null) {
            commitTimer.proposed(header.zxid(), System.nanoTime());
        }
    }

    /**
     * A durability notice of the log: kept until the round's drive, which executes the replica's pending Readies
     * first. A notice may have been sent before a truncation that a message handled earlier in this round made the
     * replica decide: only once that truncation is executed can the notice be capped by what the log reports durable
     * now, so that a record cut and appended again is never taken for durable (P4).
     */
    @Override
    public void durable(long zxid) {
        pendingDurable = Math.max(pendingDurable, zxid);
    }

    private void applyDurable() {
        long z = Math.min(pendingDurable, Math.min(logStore.durableZxid(), replica.lastAppendedZxid()));
        pendingDurable = 0;
        view.durable(z);
        if (receiving == null) {
            replica.localDurable(z);
        }
    }

    @Override
    public long drive(Stream stream) {
        if (linkedCurrent == null) {
            linkMembers();
        }
        if (tail != null) {
            tail.forEach(stream::add);
            tail = null;
        }
        do {
            while (replica.hasReady()) {
                execute(replica.ready(), stream);
                replica.advance();
                if (receiving != null && role.leaderId() != receivingFrom) {
                    abortInstall("server " + receivingFrom + " no longer leads this server");
                }
            }
            if (pendingDurable > 0) {
                applyDurable();
            }
        } while (replica.hasReady());
        if (commitTimer != null && !commitTimer.isEmpty()) {
            commitTimer.committed(replica.commitZxid(), System.nanoTime());
        }
        return replica.commitZxid();
    }

    /**
     * Asked live, not from the last round's role: a message handled earlier in this round may have deposed this
     * leader, and a proposal must then not be made.
     */
    @Override
    public boolean inService() {
        return replica.isLeaderInService();
    }

    @Override
    public long serviceStart() {
        return Zxid.of(role.epoch(), 0);
    }

    @Override
    public RoleInfo role() {
        return role;
    }

    @Override
    public void readIndex(long ctx) {
        replica.readIndex(ctx);
    }

    @Override
    public int tick(long now) {
        if (alone) {
            return 0;
        }
        this.now = now;
        if (receiving != null && now - lastChunkAt > abandonInstallMs) {
            abortInstall("no chunk for " + (now - lastChunkAt) + " ms");
        } else if (receiving != null && now - lastAskedAt > 20L * maxTicksPerRound * TICK_MS) {
            requestChunk(); // no chunk for a while (a lost request or chunk): ask again where the transfer stands
        }
        if (nextTickAt == 0) {
            nextTickAt = now + TICK_MS;
            return 0;
        }
        int ticks = 0;
        while (now >= nextTickAt && ticks < maxTicksPerRound) {
            replica.tick();
            nextTickAt += TICK_MS;
            ticks++;
        }
        if (now >= nextTickAt) {
            nextTickAt = now + TICK_MS; // this server paused: the ticks it missed are dropped
        }
        return ticks;
    }

    @Override
    public long nextTick() {
        return alone ? Long.MAX_VALUE : Math.max(nextTickAt, 1);
    }

    @Override
    public void step(int from, ReplicaMessage m) {
        replica.step(from, m);
    }

    @Override
    public void peerUp(int id) {
        replica.peerUp(id);
    }

    @Override
    public void peerDown(int id) {
        replica.peerDown(id);
    }

    /** Snapshots installed from a leader (SNAP syncs) since start. */
    public int installs() {
        return installs;
    }

    /** Whether a snapshot transfer is under way (read by any thread: tests). */
    public boolean installing() {
        return receiving != null;
    }

    /** Snapshot transfers given up since start (the sender stopped leading or went silent). */
    public int abortedInstalls() {
        return abortedInstalls;
    }

    /** Snapshot chunks ignored as stale copies of a chunk asked for twice, since start. */
    public int staleChunks() {
        return staleChunks;
    }

    /** Times proposals until they commit, telling {@code nanos} each latency (metrics; set before the first round). */
    public void timeCommits(java.util.function.LongConsumer nanos) {
        this.commitTimer = new CommitTimer(nanos);
    }

    /**
     * Leader: each follower's acked zxid and lag in txns behind this server's last appended zxid (a lag across epochs
     * counts the txns of this epoch only: approximate); empty on a follower. Inside a round.
     */
    public java.util.List<long[]> followerLag() {
        long last = replica.lastAppendedZxid();
        java.util.List<long[]> out = new ArrayList<>();
        replica.followerMatches().forEach((id, match) -> {
            long lag;
            if (match >= last) {
                lag = 0;
            } else if (Zxid.epoch(match) == Zxid.epoch(last)) {
                lag = Zxid.counter(last) - Zxid.counter(match);
            } else {
                lag = Zxid.counter(last) + 1;
            }
            out.add(new long[] {id, match, lag});
        });
        return out;
    }

    // ---- membership (docs/membership.md) -------------------------------------------------------------------------

    /**
     * Keeps the peer links to the members of the current membership, of the committed one (a removed member is
     * replicated to until its removal commits) and of the one committed before it: the round that commits a removal
     * also sends the removed member that commit, and links dropped now would be gone before the round's messages
     * leave (they are flushed at its end), so the removed member would never learn of its removal. Its link goes
     * with the next committed change.
     */
    private void linkMembers() {
        Membership current = replica.membership();
        Membership committed = replica.committedMembership();
        if (members == null || alone || current.equals(linkedCurrent) && committed.equals(linkedCommitted)) {
            linkedCurrent = current;
            linkedCommitted = committed;
            return;
        }
        if (linkedCommitted != null && linkedCommitted.isMember(replica.id()) && !committed.isMember(replica.id())) {
            log.warn("server {} was removed from the ensemble ({}): it takes no part any more; stop it",
                    replica.id(), committed);
        }
        if (linkedCommitted != null && !committed.equals(linkedCommitted)) {
            previousCommitted = linkedCommitted;
        }
        linkedCurrent = current;
        linkedCommitted = committed;
        java.util.Set<Integer> ids = new java.util.TreeSet<>(current.members());
        ids.addAll(committed.members());
        if (previousCommitted != null) {
            ids.addAll(previousCommitted.members());
        }
        peers.members(members.peerAddresses(ids));
    }

    @Override
    public Txn.Membership membership() {
        return members == null ? null : members.record(replica.membership());
    }

    @Override
    public long membershipRecordZxid() {
        if (!replica.membership().equals(replica.committedMembership())) {
            return -1;
        }
        long zxid = replica.membershipRecordZxid();
        return zxid == Zxid.NONE ? 0 : zxid;
    }

    /**
     * A voter of its current or committed membership always; a learner or observer only while it hears from a leader
     * (one removed while cut off, or whose removal committed, is no longer sent to, and never campaigns to find out);
     * a server that is a member of neither (removed, or joining and not added yet) never.
     */
    @Override
    public boolean member() {
        if (members == null) {
            return true;
        }
        int id = replica.id();
        Membership current = replica.membership();
        Membership committed = replica.committedMembership();
        if (current.isVoter(id) || committed.isVoter(id)) {
            return true;
        }
        return (current.isMember(id) || committed.isMember(id)) && replica.hasLiveLeader();
    }

    @Override
    public Txn.Membership membershipAfter(dev.zkr.client.MembershipChange change) {
        if (members == null) {
            throw new ZkException.ReconfigDisabled(null, "this server's log carries no membership records");
        }
        if (!replica.isLeaderInService()) {
            throw new IllegalStateException("not the leader in service: " + replica.roleInfo());
        }
        Membership current = replica.membership();
        if (!current.equals(replica.committedMembership())) {
            throw new ZkException.ReconfigInProgress(null, "the change to " + current + " has not committed yet");
        }
        int id = change.id();
        Membership next;
        try {
            next = switch (change.kind()) {
                case ADD, ADD_OBSERVER -> {
                    if (!current.isMember(id) && members.wasMember(id)) {
                        throw new IllegalArgumentException("server id " + id + " was a member before: ids are "
                                + "never reused (docs/membership.md); give the new server a new id");
                    }
                    Membership m = current.withLearner(id);
                    members.learnAsked(change.member());
                    yield m;
                }
                case PROMOTE -> current.promoted(id);
                case REMOVE -> current.without(id);
            };
        } catch (IllegalArgumentException e) {
            throw new ZkException.BadArguments(null, e.getMessage());
        }
        try {
            replica.checkChange(next);
        } catch (IllegalStateException e) {
            if (change.kind() == dev.zkr.client.MembershipChange.Kind.PROMOTE) {
                throw new ZkException.NewConfigNoQuorum(null, e.getMessage());
            }
            throw e;
        } catch (IllegalArgumentException e) {
            throw new ZkException.BadArguments(null, e.getMessage());
        }
        return members.record(next);
    }

    @Override
    public Txn.Membership promotionDue() {
        if (members == null || !replica.isLeaderInService()) {
            return null;
        }
        Membership current = replica.membership();
        for (int id : current.learners()) {
            dev.zkr.client.EnsembleMember m = members.member(id);
            if (m == null || m.role() != dev.zkr.client.EnsembleMember.Role.LEARNER) {
                continue; // an observer is promoted only when asked
            }
            Membership next = current.promoted(id);
            try {
                replica.checkChange(next);
            } catch (IllegalStateException notNow) {
                continue; // not caught up, or a change pending
            }
            return members.record(next);
        }
        return null;
    }

    /** Hands leadership to the most up-to-date follower (clean shutdown of a leader). */
    public void transferLeadership() {
        replica.transferLeadership();
    }

    private void execute(Ready ready, Stream stream) {
        if (ready.meta() != null) {
            metaStore.store(ready.meta());
        }
        if (ready.truncateAfter() != Zxid.NONE) {
            long cut = ready.truncateAfter();
            logStage.endRound(); // what was handed before goes first, then is cut
            logStore.truncateAfter(cut);
            view.truncatedAfter(cut);
            ownProposals.removeIf(z -> z > cut);
            if (commitTimer != null) {
                commitTimer.clear();
            }
            stream.truncateAfter(cut);
        }
        if (ready.install() != Zxid.NONE) {
            startInstall(ready.install(), ready.role().leaderId());
        }
        if (receiving != null) {
            afterInstall.addAll(ready.append()); // they follow the snapshot: logged once it is in place
        } else {
            append(ready.append(), ready.role().leaderId(), stream);
        }
        linkMembers(); // a member the records of this Ready added is dialled before it is sent to
        for (Envelope m : ready.messages()) {
            peers.send(m.to(), m.message());
        }
        if (ready.commit() > markedCommit && receiving == null) {
            markedCommit = ready.commit();
            logStore.recordCommitMark(markedCommit);
        }
        role = ready.role();
        for (ReadState r : ready.readStates()) {
            stream.readState(r.ctx(), r.readZxid() == Zxid.NONE ? 0 : r.readZxid());
        }
    }

    private void append(List<Entry> entries, int leaderId, Stream stream) {
        for (Entry e : entries) {
            Long own = ownProposals.peekFirst();
            if (own != null && own == e.zxid()) {
                ownProposals.pollFirst(); // the core's stream has it decoded already
            } else if (e.isEpochRecord() && e.payload().length == 0) {
                TxnCodec.Entry epoch = new TxnCodec.Entry(new TxnHeader(e.zxid(), clock.getAsLong(), 0,
                        TxnHeader.NO_XID), new Txn.NewEpoch(Zxid.epoch(e.zxid()), leaderId));
                e = new Entry(e.zxid(), TxnCodec.encode(epoch.header(), epoch.txn()));
                stream.add(epoch);
            } else {
                stream.add(TxnCodec.decode(e.payload()));
            }
            logStage.append(e.zxid(), e.payload());
            view.appended(e);
        }
    }

    // ---- SNAP sync (docs/replication.md, SNAP transfer) -------------------------------------------------------------

    /** Follower: the leader sends snapshot {@code zxid}; fetch it chunk by chunk (the log was cut below it first). */
    private void startInstall(long zxid, int leaderId) {
        if (receiving != null) {
            receiving.close();
        }
        if (snapshots == null) {
            throw new IllegalStateException("SNAP sync to " + Zxid.str(zxid) + " on a server without snapshots");
        }
        logStage.endRound(); // records handed before the install are written before the log restarts
        receiving = new SnapshotReceiver<>(snapshots.store(), snapshots.log(), zxid,
                (z, in) -> DataTree.readSnapshot(in));
        receivingFrom = leaderId;
        lastChunkAt = now;
        afterInstall.clear();
        log.info("installing snapshot {} from server {} (SNAP sync)", Zxid.str(zxid), leaderId);
        requestChunk();
    }

    private void requestChunk() {
        peers.send(receivingFrom, new SnapshotRequest(receiving.zxid(), receiving.offset()));
        lastAskedAt = now;
    }

    /**
     * Follower: gives up the transfer (its sender no longer leads this server, or has sent nothing for a long
     * while: dead, cut off, or without the file). The part file goes, the records that were to follow the
     * snapshot go, and the replica asks its leader, old or new, for a new sync; its log is as the install's first
     * cut left it (its durable records, nothing from the snapshot on), so it can vote and campaign meanwhile. Without this a follower whose leader died mid-SNAP would wait
     * for chunks forever and never campaign.
     */
    private void abortInstall(String why) {
        long zxid = receiving.zxid();
        receiving.close();
        receiving = null;
        afterInstall.clear();
        abortedInstalls++;
        log.warn("giving up snapshot {} from server {}: {}; asking for a new sync", Zxid.str(zxid), receivingFrom,
                why);
        replica.installAborted(zxid);
    }

    @Override
    public void snapshotMessage(int from, Object m, Stream stream) {
        if (m instanceof SnapshotRequest r) {
            sendChunk(from, r);
        } else if (m instanceof SnapshotChunk c && receiving != null && c.zxid() == receiving.zxid()) {
            if (c.offset() != receiving.offset()) {
                // a chunk asked for twice (the request was repeated after a silence: a slow leader, a paused one)
                // comes back twice; the second copy is stale. Refusing it would restart the transfer while the
                // request for the next chunk is out, and two request streams would then chase each other forever
                // (zk-bench, a joiner's SNAP on a loaded machine: 203,121 refusals in 5 minutes). It is ignored:
                // the one request out is for the offset expected.
                staleChunks++;
                return;
            }
            lastChunkAt = now;
            Optional<DataTree> loaded;
            try {
                loaded = receiving.accept(c.zxid(), c.offset(), c.data(), c.last());
            } catch (RuntimeException e) {
                log.warn("snapshot {} from server {}: {}; asking again", Zxid.str(c.zxid()), from, e.toString());
                requestChunk();
                return;
            }
            if (loaded.isEmpty()) {
                requestChunk();
                return;
            }
            finishInstall(loaded.get(), stream);
        }
    }

    /** The snapshot is durable, in place, and the log restarted after it (P3 a–d): the tree switches to it. */
    private void finishInstall(DataTree loaded, Stream stream) {
        long zxid = receiving.zxid();
        receiving.close();
        receiving = null;
        view.restartedAfter(zxid);
        DataTree.AppliedMembership atSnapshot = loaded.membership();
        if (atSnapshot != null && members != null) {
            members.learn(atSnapshot.membership());
            view.snapshotMembership(Members.toConsensus(atSnapshot.membership()));
        }
        ownProposals.clear();
        stream.installed(loaded, zxid);
        log.info("installed snapshot {} from server {}", Zxid.str(zxid), receivingFrom);
        replica.snapshotInstalled(zxid);
        installs++;
        List<Entry> held = new ArrayList<>(afterInstall);
        afterInstall.clear();
        append(held, role.leaderId(), stream);
        markedCommit = Math.max(markedCommit, zxid);
    }

    /** Leader: the chunk of its snapshot file a follower asks for (one at a time: the follower paces the transfer). */
    private void sendChunk(int to, SnapshotRequest r) {
        if (snapshots == null) {
            log.warn("server {} asks for snapshot {}: this server has no snapshots", to, Zxid.str(r.zxid()));
            return;
        }
        SnapshotSender sender = sending.get(to);
        try {
            if (sender == null || sender.zxid() != r.zxid()) {
                if (sender != null) {
                    sender.close();
                }
                sender = SnapshotSender.open(snapshots.store(), r.zxid());
                sending.put(to, sender);
            }
            SnapshotSender.Chunk c = sender.chunkAt(r.offset());
            peers.send(to, new SnapshotChunk(c.zxid(), c.offset(), c.data(), c.last()));
            if (c.last()) {
                sending.remove(to).close();
            }
        } catch (RuntimeException e) {
            log.warn("cannot send snapshot {} to server {}: {}", Zxid.str(r.zxid()), to, e.toString());
            SnapshotSender gone = sending.remove(to);
            if (gone != null) {
                gone.close();
            }
        }
    }

}
