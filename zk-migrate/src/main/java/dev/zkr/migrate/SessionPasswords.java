package dev.zkr.migrate;

import java.util.Random;

/**
 * The password a ZooKeeper server gives a session: ZooKeeper does not store passwords but derives them from the
 * session id and a constant ({@code ZooKeeperServer.superSecret}, the same in every ZooKeeper 3.x), 16 bytes of
 * {@code new Random(sessionId ^ secret)}. An imported session keeps it, so its client resumes on zkr; ZooKeeper
 * checks a resuming client the same way, so after an export only sessions with such passwords (imported ones)
 * can resume on ZooKeeper.
 */
final class SessionPasswords {
    private static final long ZOOKEEPER_SECRET = 0xB3415C00L;

    private SessionPasswords() {
    }

    static byte[] zookeeper(long sessionId) {
        byte[] p = new byte[16];
        new Random(sessionId ^ ZOOKEEPER_SECRET).nextBytes(p);
        return p;
    }
}
