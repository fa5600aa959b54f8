package dev.zkr.server;

import dev.zkr.session.SessionTable;
import dev.zkr.storage.Snapshotter;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.TxnPreparer;
import dev.zkr.tree.WatchTable;

/**
 * Wires the parts of a server's request pipeline for its role, so that roles differ in how the parts are put
 * together, not in the parts (as ZooKeeper's roles each build their own processor chain). Today there is one role,
 * {@link #standalone}; a leader and a follower will be assembled here from the same stages with another
 * {@link Quorum} and {@link Sequencer}.
 */
final class Assembler {

    /** An assembled pipeline: the core that drives it and the gate that holds its sessions. */
    record Parts(Core core, SessionGate gate) {
    }

    /**
     * The epoch of a standalone server's zxids. It is the same on every start (so a restart continues the counter);
     * zxids written before epochs existed are epoch 0, below it.
     */
    static final long STANDALONE_EPOCH = 1;

    private Assembler() {
    }

    /**
     * A standalone server (an ensemble of one): commits on local durability ({@link QuorumOfOne}).
     *
     * @param tree        the recovered tree
     * @param lastZxid    the last zxid in the tree or the log: the next txn gets a higher one
     * @param sessions    the session table, its committed sessions restored
     * @param txnLog      the open log
     * @param snapshotter the snapshotter to tell of applied txns
     */
    static Parts standalone(ServerConfig config, DataTree tree, long lastZxid, SessionTable sessions, TxnLog txnLog,
                            Snapshotter snapshotter) {
        WatchTable watches = new WatchTable();
        SessionGate gate = new SessionGate(config, sessions, tree, watches);
        PrepStage prep = new PrepStage(new TxnPreparer(tree, config.maxDataSize(),
                config.maxEphemeralsPerSession(), config.maxTxnBytes()), STANDALONE_EPOCH, lastZxid);
        ApplyStage apply = new ApplyStage(tree, prep, watches, gate);
        ReadStage reads = new ReadStage(tree, watches, apply);
        Housekeeping housekeeping = new Housekeeping(config, tree, gate, snapshotter);
        Core core = new Core(tree, gate, reads, prep, new LogStage(txnLog), new QuorumOfOne(), apply, housekeeping);
        return new Parts(core, gate);
    }
}
