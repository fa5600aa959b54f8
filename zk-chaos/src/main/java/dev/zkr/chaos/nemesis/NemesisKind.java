package dev.zkr.chaos.nemesis;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The faults the nemesis injects, by their command-line names. */
public enum NemesisKind {
    /** No fault: a baseline run. */
    NONE,
    /** kill -9 of the current leader, restarted when the window ends. */
    KILL_LEADER,
    /** kill -9 of a follower. */
    KILL_FOLLOWER,
    /** kill -9 of a minority (1 of 3, 2 of 5), leader included when drawn. */
    KILL_MINORITY,
    /** SIGSTOP of the leader, SIGCONT when the window ends. */
    PAUSE_LEADER,
    /** SIGSTOP of a follower. */
    PAUSE_FOLLOWER,
    /** The leader cut off from every other server. */
    PARTITION_LEADER,
    /** A random majority and minority. */
    PARTITION_HALF,
    /** Two sides that only one bridge server can reach both of. */
    PARTITION_BRIDGE,
    /** Every server reaches only its two neighbours on a ring (5 servers; with 3 a bridge). */
    PARTITION_RING,
    /** A member killed, the second half of its log's last record zeroed (a torn write), restarted. */
    TORN_TAIL,
    /** A member killed, one byte of its log's last record flipped, restarted. */
    CORRUPT_TAIL,
    /** Garbage, an oversized and a truncated frame sent to a member's peer port. */
    PEER_GARBAGE,
    /**
     * A client-side fault: one worker (the latest holder of a lock or leadership, if any) cut off from every server
     * for longer than its session timeout, so its session expires while it cannot hear of it; healed after.
     */
    CUT_CLIENT,
    /**
     * One server's fsyncs each take 500 ms more ({@link SlowFsync}: an LD_PRELOADed shim, the same for both
     * systems; needs gcc): the leader and a follower in turn.
     */
    SLOW_FSYNC,
    /**
     * A member (the leader included) removed from the membership and stopped for good, and a fresh server with an
     * empty disk added in its place ({@link MemberReplacement}); the runs hold spares for it.
     */
    REPLACE_MEMBER;

    /** The kinds asked for by name only (left out of {@code mix}, so its schedule per seed stays as it was). */
    public static final List<NemesisKind> BY_NAME_ONLY = List.of(CUT_CLIENT, SLOW_FSYNC);

    /** Every kind that injects a fault and is not by name only, for the mixed nemesis. */
    public static final List<NemesisKind> FAULTS = Arrays.stream(values())
            .filter(k -> k != NONE && !BY_NAME_ONLY.contains(k)).toList();

    /** Whether the fault cuts links between servers. */
    public boolean partitions() {
        return this == PARTITION_LEADER || this == PARTITION_HALF || this == PARTITION_BRIDGE
                || this == PARTITION_RING;
    }

    /** The command-line name: {@code kill-leader}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static NemesisKind parse(String s) {
        for (NemesisKind k : values()) {
            if (k.cliName().equals(s)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown nemesis '" + s + "'; one of " + names() + " or mix");
    }

    public static String names() {
        return String.join(", ", Arrays.stream(values()).map(NemesisKind::cliName).toList());
    }
}
