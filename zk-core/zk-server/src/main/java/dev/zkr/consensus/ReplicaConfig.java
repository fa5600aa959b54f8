package dev.zkr.consensus;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A replica's static settings. Times are in ticks (docs/replication.md, Timers: a tick is 10 ms, heartbeat 10 ticks,
 * election timeout T = 100 ticks randomised in [T, 2T), campaign jitter 0–2 ticks). {@code random} is the only
 * source of randomness (seeded by the caller). {@code members} are the static voters, in force until the log holds a
 * membership record (docs/membership.md); a replica not among them (a server joining a running ensemble) is a
 * non-voter until its log makes it a voter.
 */
public record ReplicaConfig(int id, List<Integer> members, int electionTicks, int heartbeatTicks,
                            int campaignJitterTicks, RandomGenerator random) {
    public ReplicaConfig {
        members = List.copyOf(members);
        if (members.isEmpty()) {
            throw new IllegalArgumentException("no members");
        }
        if (heartbeatTicks < 1 || electionTicks <= heartbeatTicks || campaignJitterTicks < 0) {
            throw new IllegalArgumentException("need 1 <= heartbeatTicks < electionTicks, jitter >= 0");
        }
    }

    /** The defaults (docs/replication.md, Timers). */
    public static ReplicaConfig defaults(int id, List<Integer> members, RandomGenerator random) {
        return new ReplicaConfig(id, members, 100, 10, 2, random);
    }
}
