package dev.zkr.server;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Meta;
import dev.zkr.consensus.Ready;
import dev.zkr.consensus.Replica;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The {@link Quorum} that drives a consensus {@link Replica} inside {@link Core}'s rounds (REPLICATION.md §3.2):
 * sequenced txns go in through {@code propose}, the log's durability notices through {@code localDurable}, and
 * each round executes the replica's {@link Ready} in its order — meta persisted first (P1), truncation, records to
 * the {@link LogStage} (async: their durability comes back as a notice, P4), the commit point to the core and, riding
 * on the next fsync, to the log's commit mark ({@link TxnLog#recordCommitMark}).
 *
 * <p>The replica's {@code EPOCH} record (an empty {@link Entry} at (e,0)) is logged and applied as
 * {@link Txn.NewEpoch}. Records the core did not sequence (the uncommitted tail recovered at start, EPOCH records)
 * go to the core's apply stream, applied once committed. Today the replica has one member (a standalone server): it
 * elected itself when it was built, so it has no peers, sends no messages and needs no ticks.
 */
final class ReplicationStage implements Quorum {

    /** Persists the replica's metadata durably (temp + fsync + rename + dir fsync) before anything depends on it. */
    interface MetaStore {
        void store(Meta meta);
    }

    private final Replica replica;
    private final TxnLogView view;
    private final LogStage logStage;
    private final TxnLog txnLog;
    private final MetaStore metaStore;
    private final LongSupplier clock;
    /** The recovered tail (logged, not known committed), handed to the apply stream in the first round. */
    private List<TxnCodec.Entry> tail;
    private long markedCommit;
    private boolean inService;

    /**
     * @param replica   a replica recovered from {@code view} (one member: it elected itself)
     * @param tail      the records after what recovery applied, in zxid order (committed by the new EPOCH record)
     * @param clock     the time the EPOCH record carries
     */
    ReplicationStage(Replica replica, TxnLogView view, LogStage logStage, TxnLog txnLog, MetaStore metaStore,
                     List<TxnCodec.Entry> tail, LongSupplier clock) {
        this.replica = replica;
        this.view = view;
        this.logStage = logStage;
        this.txnLog = txnLog;
        this.metaStore = metaStore;
        this.tail = List.copyOf(tail);
        this.clock = clock;
        this.markedCommit = replica.commitZxid();
    }

    /** The epoch this server leads: its txns' zxids are (epoch, 1), (epoch, 2), … */
    long epoch() {
        return replica.roleInfo().epoch();
    }

    @Override
    public void append(TxnHeader header, Txn txn) {
        replica.propose(header.zxid(), TxnCodec.encode(header, txn));
    }

    @Override
    public void durable(long zxid) {
        view.durable(zxid);
        replica.localDurable(zxid);
    }

    @Override
    public long drive(Consumer<TxnCodec.Entry> toApply) {
        if (tail != null) {
            tail.forEach(toApply);
            tail = null;
        }
        while (replica.hasReady()) {
            execute(replica.ready(), toApply);
            replica.advance();
        }
        return replica.commitZxid();
    }

    @Override
    public boolean inService() {
        return inService;
    }

    private void execute(Ready ready, Consumer<TxnCodec.Entry> toApply) {
        if (ready.meta() != null) {
            metaStore.store(ready.meta());
        }
        if (ready.truncateAfter() != Zxid.NONE) {
            logStage.endRound(); // what was handed before goes first, then is cut
            txnLog.truncateAfter(ready.truncateAfter());
            view.truncatedAfter(ready.truncateAfter());
        }
        if (ready.install() != Zxid.NONE) {
            throw new IllegalStateException("snapshot install is not wired yet (a single member never needs one)");
        }
        for (Entry e : ready.append()) {
            if (e.isEpochRecord() && e.payload().length == 0) {
                TxnCodec.Entry epoch = new TxnCodec.Entry(new TxnHeader(e.zxid(), clock.getAsLong(), 0,
                        TxnHeader.NO_XID), new Txn.NewEpoch(Zxid.epoch(e.zxid()), replica.id()));
                e = new Entry(e.zxid(), TxnCodec.encode(epoch.header(), epoch.txn()));
                toApply.accept(epoch);
            }
            // a single member appends only its EPOCH records and the core's own proposals (already in the stream)
            logStage.append(e.zxid(), e.payload());
            view.appended(e);
        }
        if (ready.commit() > markedCommit) {
            markedCommit = ready.commit();
            txnLog.recordCommitMark(markedCommit);
        }
        RoleInfo role = ready.role();
        inService = role.inService();
    }
}
