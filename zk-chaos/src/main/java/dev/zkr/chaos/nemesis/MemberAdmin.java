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

    /**
     * Makes a change unless {@code made} says it is: asks for it with {@code change}, and on an answer of the kind
     * {@code retryOn} waits {@link #RETRY_MS} and looks again, until {@link #DEADLINE_MS} has passed.
     */
    static void untilMade(String what, Check made, Step change, Class<? extends Exception> retryOn) throws Exception {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        Exception last = null;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (!made.test()) {
                    change.run();
                }
                return;
            } catch (Exception e) {
                if (!retryOn.isInstance(e)) {
                    throw e;
                }
                last = e; // a change in progress, a new member not caught up yet, a lost connection: try again
                Thread.sleep(RETRY_MS);
            }
        }
        throw new IllegalStateException(what + " not made in " + DEADLINE_MS + " ms", last);
    }

    /** Whether the change is in force now (read from the ensemble). */
    interface Check {
        boolean test() throws Exception;
    }

    /** Asks for the change and returns once it is committed. */
    interface Step {
        void run() throws Exception;
    }

    /** How long one change is tried. */
    long DEADLINE_MS = 30_000;
    /** The pause between tries. */
    long RETRY_MS = 200;
}
