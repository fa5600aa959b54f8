package dev.zkr.server;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Ready;
import dev.zkr.consensus.Replica;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.storage.LogStore;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Interim, test only: {@link ReplicationStage} as of main 2009331, line for line, over a {@link LogStore} and a
 * {@link SimLogView} instead of a {@link dev.zkr.storage.TxnLog} and a {@link TxnLogView}, so the simulator can drive
 * the standalone pipeline before the lead's stage takes those seams. Delete once {@code ReplicationStage} takes
 * {@code LogStore} and a view interface; the simulator then builds the real one.
 */
final class SimReplicationStage implements Quorum {

    private final Replica replica;
    private final SimLogView view;
    private final LogStage logStage;
    private final LogStore txnLog;
    private final ReplicationStage.MetaStore metaStore;
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
    SimReplicationStage(Replica replica, SimLogView view, LogStage logStage, LogStore txnLog,
                        ReplicationStage.MetaStore metaStore,
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
