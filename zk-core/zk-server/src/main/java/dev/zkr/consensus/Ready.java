package dev.zkr.consensus;

import java.util.List;

/**
 * What the driver must do, in this order, before calling {@link Replica#advance()}:
 * <ol>
 * <li>{@code meta} (if not null): persist durably (temp + fsync + rename + dir fsync) — before any message of this
 * Ready is sent (P1);</li>
 * <li>{@code truncateAfter} (unless {@link Zxid#NONE}): durably drop every record after it (P2);</li>
 * <li>{@code install} (unless NONE): fetch snapshot {@code install} from the leader and install it crash-safely
 * (P3), then call {@link Replica#snapshotInstalled}; records of later Readies go after it;</li>
 * <li>{@code append}: hand to the log (async); report durability with {@link Replica#localDurable} (P4);</li>
 * <li>{@code messages}: send ({@code Propose}s may go before the local append is durable, P6);</li>
 * <li>{@code commit}: apply records up to it (it never passes what was appended; on a leader it may pass the local
 * durable point, when followers' disks made the quorum; the commit mark rides on the next fsync, after the records it
 * covers); {@code readStates}: answer reads; {@code role}: publish.</li>
 * </ol>
 */
public record Ready(Meta meta, long truncateAfter, long install, List<Entry> append, List<Envelope> messages,
                    long commit, RoleInfo role, List<ReadState> readStates) {
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        if (meta != null) {
            s.append(" meta=").append(meta.acceptedEpoch()).append('/').append(meta.votedFor());
        }
        if (truncateAfter != Zxid.NONE) {
            s.append(" trunc=").append(Zxid.str(truncateAfter));
        }
        if (install != Zxid.NONE) {
            s.append(" install=").append(Zxid.str(install));
        }
        if (!append.isEmpty()) {
            s.append(" append=").append(Zxid.str(append.get(0).zxid())).append("..")
                    .append(Zxid.str(append.get(append.size() - 1).zxid()));
        }
        s.append(" commit=").append(Zxid.str(commit)).append(' ').append(role.role()).append('/')
                .append(role.leaderId()).append('/').append(role.epoch()).append(role.inService() ? "/in" : "");
        for (ReadState r : readStates) {
            s.append(" read=").append(r.ctx()).append(':').append(Zxid.str(r.readZxid()));
        }
        for (Envelope m : messages) {
            s.append(' ').append(m);
        }
        return s.toString().trim();
    }
}
