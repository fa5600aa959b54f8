package dev.zkr.session;

import dev.zkr.tree.SessionInfo;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Session bookkeeping, pure: ids, passwords, negotiated timeouts and deadlines on an injected clock
 * ({@code nowMillis} is passed into every time-dependent method). The table only reports who is due
 * ({@link #expired}); the server decides expiry by sequencing a CloseSession txn and calls {@link #remove} once it
 * is applied. Not thread-safe: the server touches it only inside a round (see docs/architecture.md, Threads).
 *
 * <p>Session ids are unique across restarts as in ZooKeeper: server id in the high byte, then bits of the startup
 * time (passed in), then a counter. Passwords are derived from the session id and a server secret (passed in) with
 * SHA-256, so they are unguessable without the secret yet need no randomness here.
 */
public final class SessionTable {

    /**
     * Limits for timeout negotiation.
     *
     * @param serverId     this server's id (0..255), the high byte of every session id
     * @param minTimeoutMs smallest negotiated timeout
     * @param maxTimeoutMs largest negotiated timeout
     */
    public record Config(long serverId, int minTimeoutMs, int maxTimeoutMs) {
        public Config {
            if (serverId < 0 || serverId > 255) {
                throw new IllegalArgumentException("serverId must be 0..255: " + serverId);
            }
            if (minTimeoutMs <= 0 || maxTimeoutMs < minTimeoutMs) {
                throw new IllegalArgumentException("bad timeout bounds " + minTimeoutMs + ".." + maxTimeoutMs);
            }
        }

        /** ZooKeeper's defaults: 2 to 20 ticks. */
        public static Config ofTick(long serverId, int tickMs) {
            return new Config(serverId, 2 * tickMs, 20 * tickMs);
        }
    }

    private static final class Entry {
        final long id;
        final int timeoutMs;
        final byte[] password;
        long deadline;
        boolean closing;

        Entry(long id, int timeoutMs, byte[] password, long deadline) {
            this.id = id;
            this.timeoutMs = timeoutMs;
            this.password = password;
            this.deadline = deadline;
        }
    }

    private final Config config;
    private final byte[] secret;
    private final Map<Long, Entry> sessions = new HashMap<>();
    private long nextId;

    /**
     * @param config       timeout bounds and server id
     * @param startMillis  the server's startup time (seeds the id counter so ids differ across restarts)
     * @param secret       secret bytes for password derivation (generate randomly once per server and keep it)
     */
    public SessionTable(Config config, long startMillis, byte[] secret) {
        this.config = config;
        this.secret = secret.clone();
        this.nextId = initialId(config.serverId(), startMillis);
    }

    /** ZooKeeper's scheme: 40 bits of time shifted under the server id byte. */
    static long initialId(long serverId, long startMillis) {
        long id = (startMillis << 24) >>> 8;
        id |= serverId << 56;
        if (id == Long.MIN_VALUE || id == 0) {
            id++;
        }
        return id;
    }

    /** A fresh session id (never 0). */
    public long nextSessionId() {
        long id = nextId++;
        if (id == 0) {
            id = nextId++;
        }
        return id;
    }

    /** The timeout granted for a requested one: clamped to [min, max]. */
    public int negotiateTimeout(int requestedMs) {
        return Math.max(config.minTimeoutMs(), Math.min(config.maxTimeoutMs(), requestedMs));
    }

    /** The password for a session id (16 bytes, derived from the secret). */
    public byte[] passwordFor(long sessionId) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(secret);
            sha.update(ByteBuffer.allocate(8).putLong(sessionId).array());
            byte[] full = sha.digest();
            byte[] pw = new byte[16];
            System.arraycopy(full, 0, pw, 0, 16);
            return pw;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** Starts tracking a session; its deadline is {@code nowMillis + timeoutMs}. Replaces an existing entry. */
    public void add(long sessionId, int timeoutMs, byte[] password, long nowMillis) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeout must be > 0");
        }
        sessions.put(sessionId, new Entry(sessionId, timeoutMs, password.clone(), nowMillis + timeoutMs));
    }

    /**
     * Tracks every committed session of a restored tree with a fresh deadline ({@code nowMillis + timeout}), so
     * clients get a full timeout to reconnect after a restart.
     */
    public void restore(Collection<SessionInfo> committed, long nowMillis) {
        for (SessionInfo s : committed) {
            sessions.put(s.sessionId(), new Entry(s.sessionId(), s.timeoutMs(), s.password().clone(),
                    nowMillis + s.timeoutMs()));
        }
    }

    /**
     * Heartbeat or request: pushes the deadline to {@code nowMillis + timeout}. Returns false if the session is
     * unknown or closing (the caller must answer SESSION_EXPIRED).
     */
    public boolean touch(long sessionId, long nowMillis) {
        Entry e = sessions.get(sessionId);
        if (e == null || e.closing) {
            return false;
        }
        e.deadline = Math.max(e.deadline, nowMillis + e.timeoutMs);
        return true;
    }

    /**
     * Sessions whose deadline has passed ({@code deadline <= nowMillis}) and that are not yet closing, sorted by
     * id. They are marked closing, so each is reported once and {@link #touch} rejects them from now on.
     */
    public List<Long> expired(long nowMillis) {
        List<Long> due = new ArrayList<>();
        for (Entry e : sessions.values()) {
            if (!e.closing && e.deadline <= nowMillis) {
                e.closing = true;
                due.add(e.id);
            }
        }
        due.sort(null);
        return due;
    }

    /** The earliest deadline among active sessions, or {@code Long.MAX_VALUE} if none (for timer scheduling). */
    public long nextDeadline() {
        long min = Long.MAX_VALUE;
        for (Entry e : sessions.values()) {
            if (!e.closing) {
                min = Math.min(min, e.deadline);
            }
        }
        return min;
    }

    /** Marks a session closing (explicit close requested): no more requests are accepted. False if unknown. */
    public boolean markClosing(long sessionId) {
        Entry e = sessions.get(sessionId);
        if (e == null || e.closing) {
            return false;
        }
        e.closing = true;
        return true;
    }

    /** Forgets a session (its CloseSession txn was applied). */
    public void remove(long sessionId) {
        sessions.remove(sessionId);
    }

    /** True if the session is known and not closing. */
    public boolean isActive(long sessionId) {
        Entry e = sessions.get(sessionId);
        return e != null && !e.closing;
    }

    /** True if the session is known and the password matches (constant-time compare). */
    public boolean checkPassword(long sessionId, byte[] password) {
        Entry e = sessions.get(sessionId);
        return e != null && password != null && MessageDigest.isEqual(e.password, password);
    }

    /** The negotiated timeout of a session, or -1 if unknown. */
    public int timeoutOf(long sessionId) {
        Entry e = sessions.get(sessionId);
        return e == null ? -1 : e.timeoutMs;
    }

    /** The current deadline of a session, or -1 if unknown. */
    public long deadlineOf(long sessionId) {
        Entry e = sessions.get(sessionId);
        return e == null ? -1 : e.deadline;
    }

    /**
     * Gives every session a full timeout from {@code nowMillis} (a new leader does this at its election, so a
     * failover expires nobody).
     */
    public void touchAll(long nowMillis) {
        for (Entry e : sessions.values()) {
            e.deadline = Math.max(e.deadline, nowMillis + e.timeoutMs);
        }
    }

    /**
     * Forgets every "closing" mark: the close or expiry txns this server sequenced were not decided (it stopped
     * leading, or its forwards were lost), so the sessions they named are live until a txn says otherwise.
     */
    public void clearClosing() {
        for (Entry e : sessions.values()) {
            e.closing = false;
        }
    }

    /** Number of tracked sessions (including closing ones). */
    public int size() {
        return sessions.size();
    }
}
