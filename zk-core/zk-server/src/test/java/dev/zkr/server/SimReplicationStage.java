package dev.zkr.server;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Envelope;
import dev.zkr.consensus.Message;
import dev.zkr.consensus.ReadState;
import dev.zkr.consensus.Ready;
import dev.zkr.consensus.Replica;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.storage.LogStore;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Interim, test only: {@link ReplicationStage} line for line (generated from it by a text substitution), over a
 * {@link LogStore} and a {@link SimLogView} instead of a {@link dev.zkr.storage.TxnLog} and a {@link TxnLogView}, so
 * the simulator drives the server's replication code before the stage takes those seams. Delete once
 * {@code ReplicationStage} takes {@code LogStore} and a view interface; the simulator then builds the real one.
 */
final class SimReplicationStage implements Quorum {

    /** One replica tick (REPLICATION.md §3.1: heartbeat and election timeouts are counted in ticks). */
    static final int TICK_MS = ReplicationStage.TICK_MS;

    /**
     * Ticks counted at most per round. A server that did not run for longer (a GC pause, an overloaded machine, a
     * SIGSTOP) drops the ticks it missed, as a Go ticker drops the ticks of a slow receiver (etcd's model): its own
     * pause is not taken for its peers' silence, and the messages that arrived meanwhile are handled first.
     */
    static final int MAX_TICKS_PER_ROUND = 5;

    private final Replica replica;
    private final SimLogView view;
    private final LogStage logStage;
    private final LogStore txnLog;
    private final ReplicationStage.MetaStore metaStore;
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

    /**
     * @param replica   a replica recovered from {@code view}
     * @param tail      the records after what recovery applied, in zxid order
     * @param peers     where messages go (unused by a single member)
     * @param clock     the time an EPOCH record carries
     */
    SimReplicationStage(Replica replica, SimLogView view, LogStage logStage, LogStore txnLog,
                        ReplicationStage.MetaStore metaStore,
                     List<TxnCodec.Entry> tail, PeerLink peers, LongSupplier clock, int electionTicks) {
        this.replica = replica;
        this.view = view;
        this.logStage = logStage;
        this.txnLog = txnLog;
        this.metaStore = metaStore;
        this.tail = List.copyOf(tail);
        this.peers = peers;
        this.clock = clock;
        this.markedCommit = replica.commitZxid();
        this.role = replica.roleInfo();
        this.alone = peers == PeerLink.NONE;
        this.maxTicksPerRound = MAX_TICKS_PER_ROUND;
    }

    /** The epoch of the replica as built: the one a single member leads. */
    long epoch() {
        return replica.roleInfo().epoch();
    }

    @Override
    public void append(TxnHeader header, Txn txn) {
        replica.propose(header.zxid(), TxnCodec.encode(header, txn));
        ownProposals.addLast(header.zxid());
    }

    @Override
    public void durable(long zxid) {
        view.durable(zxid);
        replica.localDurable(zxid);
    }

    @Override
    public long drive(Stream stream) {
        if (tail != null) {
            tail.forEach(stream::add);
            tail = null;
        }
        while (replica.hasReady()) {
            execute(replica.ready(), stream);
            replica.advance();
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
    public void tick(long now) {
        if (alone) {
            return;
        }
        if (nextTickAt == 0) {
            nextTickAt = now + TICK_MS;
            return;
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
    }

    @Override
    public long nextTick() {
        return alone ? Long.MAX_VALUE : Math.max(nextTickAt, 1);
    }

    @Override
    public void step(int from, Message m) {
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

    /** Hands leadership to the most up-to-date follower (clean shutdown of a leader). */
    void transferLeadership() {
        replica.transferLeadership();
    }

    private void execute(Ready ready, Stream stream) {
        if (ready.meta() != null) {
            metaStore.store(ready.meta());
        }
        if (ready.truncateAfter() != Zxid.NONE) {
            long cut = ready.truncateAfter();
            logStage.endRound(); // what was handed before goes first, then is cut
            txnLog.truncateAfter(cut);
            view.truncatedAfter(cut);
            ownProposals.removeIf(z -> z > cut);
            stream.truncateAfter(cut);
        }
        if (ready.install() != Zxid.NONE) {
            throw new IllegalStateException("snapshot install (SNAP sync) is not wired into the server yet");
        }
        for (Entry e : ready.append()) {
            Long own = ownProposals.peekFirst();
            if (own != null && own == e.zxid()) {
                ownProposals.pollFirst(); // the core's stream has it decoded already
            } else if (e.isEpochRecord() && e.payload().length == 0) {
                TxnCodec.Entry epoch = new TxnCodec.Entry(new TxnHeader(e.zxid(), clock.getAsLong(), 0,
                        TxnHeader.NO_XID), new Txn.NewEpoch(Zxid.epoch(e.zxid()), ready.role().leaderId()));
                e = new Entry(e.zxid(), TxnCodec.encode(epoch.header(), epoch.txn()));
                stream.add(epoch);
            } else {
                stream.add(TxnCodec.decode(e.payload()));
            }
            logStage.append(e.zxid(), e.payload());
            view.appended(e);
        }
        for (Envelope m : ready.messages()) {
            peers.send(m.to(), m.message());
        }
        if (ready.commit() > markedCommit) {
            markedCommit = ready.commit();
            txnLog.recordCommitMark(markedCommit);
        }
        role = ready.role();
        for (ReadState r : ready.readStates()) {
            stream.readState(r.ctx(), r.readZxid() == Zxid.NONE ? 0 : r.readZxid());
        }
    }

}
