package dev.zkr.server.replication;

import dev.zkr.server.round.LogStage;
import dev.zkr.server.round.Replication;
import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Replication} of a standalone server without a replica (the fast path, {@code -Dzkr.server.quorum=one}):
 * locally durable means committed. Round state (docs/architecture.md, Threads).
 */
public final class QuorumOfOne implements Replication {

    private final LogStage logStage;
    private final RoleInfo role;
    private long committed;
    private long appended;
    private List<Long> reads = new ArrayList<>();

    public QuorumOfOne(LogStage logStage, long lastZxid, int serverId, long epoch) {
        this.logStage = logStage;
        this.committed = lastZxid;
        this.appended = lastZxid;
        this.role = new RoleInfo(Role.LEADER, serverId, epoch, true);
    }

    @Override
    public void append(TxnHeader header, Txn txn) {
        logStage.append(header, txn);
        appended = header.zxid();
    }

    @Override
    public void durable(long zxid) {
        committed = Math.max(committed, zxid);
    }

    @Override
    public long drive(Stream stream) {
        if (!reads.isEmpty()) {
            List<Long> due = reads;
            reads = new ArrayList<>();
            due.forEach(ctx -> stream.readState(ctx, appended));
        }
        return committed;
    }

    @Override
    public boolean inService() {
        return true;
    }

    @Override
    public long serviceStart() {
        return 0;
    }

    @Override
    public RoleInfo role() {
        return role;
    }

    @Override
    public void readIndex(long ctx) {
        reads.add(ctx);
    }
}
