package dev.zkr.bench;

import java.util.Comparator;
import java.util.List;

/**
 * Where one write-unavailability gap went, from the fault's time, the first acknowledged write issued after it, and
 * the role lines the surviving members printed meanwhile (pure arithmetic on {@link System#nanoTime()} values).
 *
 * <ul>
 *   <li><b>detection</b>: fault → the first role line of any survivor (it stopped following the old leader);</li>
 *   <li><b>election</b>: → the first survivor that says it leads;</li>
 *   <li><b>sync + first write</b>: → the first acknowledged write (for ZooKeeper also split at the new leader's
 *       {@code leading - broadcast}: {@link #syncMs} and {@link #writeAfterSyncMs});</li>
 * </ul>
 * A phase whose line never came is null, and the next phase then starts where the last known one ended.
 *
 * @param gapMs           fault → first acknowledged write
 * @param detectionMs     fault → first role change of a survivor, or null
 * @param electionMs      → a survivor leads, or null
 * @param syncAndWriteMs  → first acknowledged write
 * @param syncMs          ZooKeeper: election → the new leader's {@code leading - broadcast}, else null
 * @param writeAfterSyncMs ZooKeeper: {@code leading - broadcast} → first acknowledged write, else null
 * @param newLeader       index of the member that led first after the fault, or -1
 */
record GapBreakdown(double gapMs, Double detectionMs, Double electionMs, double syncAndWriteMs, Double syncMs,
                    Double writeAfterSyncMs, int newLeader) {

    /** One survivor's role line: which member printed it, and when. */
    record Seen(int member, RoleLog.Event event) {
    }

    static GapBreakdown of(long faultNanos, long ackNanos, List<Seen> survivorLines) {
        List<Seen> after = survivorLines.stream()
                .filter(s -> s.event().nanos() >= faultNanos)
                .sorted(Comparator.comparingLong(s -> s.event().nanos()))
                .toList();
        Long detected = after.isEmpty() ? null : after.get(0).event().nanos();
        Seen elected = after.stream().filter(s -> s.event().role().kind().leads()).findFirst().orElse(null);
        Long electedAt = elected == null ? null : elected.event().nanos();
        Long syncedAt = elected == null ? null : after.stream()
                .filter(s -> s.member() == elected.member()
                        && s.event().role().kind() == RoleLine.Kind.LEADING_SYNCED)
                .map(s -> s.event().nanos()).findFirst().orElse(null);
        if (electedAt != null && electedAt.equals(syncedAt)) {
            syncedAt = null; // one line said both (not a ZooKeeper shape): no split
        }
        long detectEnd = detected != null ? detected : faultNanos;
        long electEnd = electedAt != null ? electedAt : detectEnd;
        return new GapBreakdown(
                ms(ackNanos - faultNanos),
                detected == null ? null : ms(detected - faultNanos),
                electedAt == null ? null : ms(electedAt - detectEnd),
                ms(ackNanos - electEnd),
                syncedAt == null ? null : ms(syncedAt - electEnd),
                syncedAt == null ? null : ms(ackNanos - syncedAt),
                elected == null ? -1 : elected.member());
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
