package dev.zkr.chaos.nemesis;

import dev.zkr.chaos.Cluster;

/**
 * One system's membership changes as its operator makes them, as the super user: make a running observer a voter,
 * remove a member. Each call returns once the change is in force (committed), and is retried on the answers a
 * busy or failing ensemble gives (a change in progress, a lost connection: it then reads the membership to see
 * whether the change was made) until its deadline.
 */
interface MemberAdmin {

    /** Makes the observer at index {@code i} a voter. */
    void promote(int i) throws Exception;

    /** Removes the member at index {@code i}. */
    void remove(int i) throws Exception;

    /** The admin of {@code cluster}'s system. */
    static MemberAdmin of(Cluster cluster) {
        return cluster.system().equals("zkr") ? new ZkrMemberAdmin(cluster) : new ZooKeeperMemberAdmin(cluster);
    }

    /** How long one change is tried. */
    long DEADLINE_MS = 30_000;
    /** The pause between tries. */
    long RETRY_MS = 200;
}
