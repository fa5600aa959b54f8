package dev.zkr.server.round;

import dev.zkr.server.ServerConfig;
import dev.zkr.client.ZkException;
import dev.zkr.session.SessionTable;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * The session gate (round state): the session side of the handshake (new session through a CreateSession txn, re-attach by id and
 * password, refusal), which connection serves which session, heartbeats, and expiry through a CloseSession txn.
 */
final class SessionGate {

    private static final Logger log = LoggerFactory.getLogger(SessionGate.class);

    private final ServerConfig config;
    private final SessionTable sessions;
    private final DataTree tree;
    private final WatchTable watches;
    private final Map<Long, Connection> bySession = new HashMap<>();

    SessionGate(ServerConfig config, SessionTable sessions, DataTree tree, WatchTable watches) {
        this.config = config;
        this.sessions = sessions;
        this.tree = tree;
        this.watches = watches;
    }

    /** The connection currently serving a session, or null. */
    Connection connectionOf(long sessionId) {
        return bySession.get(sessionId);
    }

    void connect(Connection c, Message.ConnectRequest cr, long now, Sequencer sequencer) {
        if (cr.lastZxidSeen() > tree.lastZxid()) {
            refuse(c, ZkException.Code.CONNECTION_LOSS, "server has not seen zxid 0x"
                    + Long.toHexString(cr.lastZxidSeen()) + " yet (it is at 0x" + Long.toHexString(tree.lastZxid())
                    + ")");
            return;
        }
        if (cr.sessionId() == 0) {
            Request.CreateSession create = newSession(cr);
            long id = create.sessionId();
            Pending p = sequencer.prepare(Pending.Kind.CREATE_SESSION, c, null, create, id);
            if (p.txn == null) {
                refuse(c, ZkException.Code.SYSTEM_ERROR, "cannot create session: " + p.failure.message());
                return;
            }
            sequencer.sequence(p);
            return;
        }
        long id = cr.sessionId();
        if (!sessions.isActive(id) || cr.password() == null || !sessions.checkPassword(id, cr.password())) {
            refuse(c, ZkException.Code.SESSION_EXPIRED, "session 0x" + Long.toHexString(id) + " expired");
            return;
        }
        sessions.touch(id, now);
        attach(c, id, sessions.timeoutOf(id), tree.session(id).password());
    }

    /** A new session for a handshake: a fresh id (this server's id in its high byte), timeout and password. */
    Request.CreateSession newSession(Message.ConnectRequest cr) {
        long id = sessions.nextSessionId();
        while (tree.session(id) != null || sessions.timeoutOf(id) >= 0) {
            id = sessions.nextSessionId();
        }
        return new Request.CreateSession(id, sessions.negotiateTimeout(cr.sessionTimeoutMs()),
                sessions.passwordFor(id));
    }

    /** True if the session is live here and the password is its own (the leader's check of an {@code Attach}). */
    boolean live(long id, byte[] password) {
        return sessions.isActive(id) && password != null && sessions.checkPassword(id, password);
    }

    /**
     * Attaches a handshake to a session the leader confirmed live, once this server applied it: false (and the
     * handshake refused) if it is not live here after all.
     */
    boolean attachExisting(Connection c, long id, byte[] password, long now) {
        if (!live(id, password) || tree.session(id) == null) {
            refuse(c, ZkException.Code.SESSION_EXPIRED, "session 0x" + Long.toHexString(id) + " expired");
            return false;
        }
        sessions.touch(id, now);
        attach(c, id, sessions.timeoutOf(id), tree.session(id).password());
        return true;
    }

    /** A request of the session arrived through a follower: false if it is unknown or closing here. */
    boolean touchSession(long id, long now) {
        return sessions.touch(id, now);
    }

    /** A follower reported the session active: it stays alive. */
    void touchRemote(long id, long now) {
        sessions.touch(id, now);
    }

    /** A new leader gives every session a full timeout from now, so a failover expires nobody. */
    void touchAll(long now) {
        sessions.touchAll(now);
    }

    /** The closes and expiries this server sequenced were not decided: those sessions are live again. */
    void clearClosing() {
        sessions.clearClosing();
    }

    /** Marks the session closing (its client asked to close; the txn goes through the leader). */
    void markClosing(long id) {
        sessions.markClosing(id);
    }

    /** The session's client moved to another server: close this server's connection of it, if any. */
    void moved(long id) {
        Connection c = bySession.remove(id);
        if (c != null) {
            c.closed = true;
            c.queue.clear();
            watches.removeSession(id);
            c.control(Connection.Control.CLOSE);
        }
    }

    /** Closes every client connection (this server lost its leader for too long: clients move elsewhere). */
    int closeAll() {
        int n = 0;
        for (Connection c : bySession.values()) {
            c.closed = true;
            c.queue.clear();
            watches.removeSession(c.sessionId);
            c.control(Connection.Control.CLOSE);
            n++;
        }
        bySession.clear();
        return n;
    }

    /** Connections with an attached session. */
    int connectionCount() {
        return bySession.size();
    }

    /**
     * A CreateSession or CloseSession txn was applied (on every server that applies the log, whoever sequenced it):
     * the session table follows. A new session's deadline counts from {@code now}; a closed session is forgotten
     * with its watches. Its connection, if this server holds one, is closed by {@link #disconnectClosed} once the
     * txn's reply (if any) is queued.
     */
    void applied(Txn txn, long now) {
        if (txn instanceof Txn.CreateSession cs) {
            sessions.add(cs.sessionId(), cs.timeoutMs(), cs.password(), now);
        } else if (txn instanceof Txn.CloseSession cs) {
            sessions.remove(cs.sessionId());
            watches.removeSession(cs.sessionId());
        }
    }

    /** The tree switched to a snapshot: sessions only in the old tree are gone, new ones are tracked from now. */
    void installed(dev.zkr.tree.Replacement r, long now) {
        for (long id : r.sessionsRemoved()) {
            sessions.remove(id);
            watches.removeSession(id);
            disconnectClosed(id);
        }
        for (dev.zkr.tree.SessionInfo s : r.sessionsAdded()) {
            sessions.add(s.sessionId(), s.timeoutMs(), s.password(), now);
        }
    }

    /** The CreateSession txn this server sequenced or forwarded for a handshake is applied: answer it. */
    void created(Connection c, Txn.CreateSession cs) {
        if (!c.closed) {
            attach(c, cs.sessionId(), cs.timeoutMs(), cs.password());
        }
    }

    private void attach(Connection c, long id, int timeoutMs, byte[] password) {
        Connection old = bySession.put(id, c);
        if (old != null && old != c) {
            // the client left that connection: as if its close had been seen now (no more requests served or
            // answered on it, the reads it holds dropped), and its watches go with it, as on a disconnect; the
            // client sets again (SetWatches, after this handshake) the ones it knows of
            old.closed = true;
            old.queue.clear();
            watches.removeSession(id);
            old.control(Connection.Control.CLOSE);
        }
        c.sessionId = id;
        c.timeoutMs = timeoutMs;
        // ACKS_VERSION: this server takes AckedRequests (clients before them ignore the version answered)
        c.send(new Message.ConnectResponse(Message.ACKS_VERSION, id, password, timeoutMs, config.maxDataSize()));
        c.control(Connection.Control.ATTACHED);
    }

    void refuse(Connection c, ZkException.Code code, String why) {
        log.info("refusing connection from {}: {}", c, why);
        c.send(new Message.ConnectRefused(code.intValue(), why));
        c.control(Connection.Control.CLOSE);
    }

    /** A request or heartbeat of the connection's session; false if the session is gone or closing. */
    boolean touch(Connection c, long now) {
        return c.sessionId != 0 && sessions.touch(c.sessionId, now);
    }

    /** The client asked to close its session: sequence the CloseSession txn. */
    Pending close(Connection c, Message.Request r, Sequencer sequencer) {
        sessions.markClosing(c.sessionId);
        return sequencer.prepare(Pending.Kind.CLOSE_SESSION, c, r, new Request.CloseSession(c.sessionId),
                c.sessionId);
    }

    /** Expires the sessions whose deadline passed. */
    void expireDue(long now, Sequencer sequencer) {
        for (long id : sessions.expired(now)) {
            expire(id, sequencer, "timed out");
        }
    }

    /** Expires a session now (test hook); false if it is unknown or already closing. */
    boolean expireNow(long id, Sequencer sequencer) {
        if (!sessions.markClosing(id)) {
            return false;
        }
        expire(id, sequencer, "expired on request");
        return true;
    }

    private void expire(long id, Sequencer sequencer, String why) {
        log.info("session 0x{} {}: closing it", Long.toHexString(id), why);
        Pending p = sequencer.prepare(Pending.Kind.EXPIRE_SESSION, null, null, new Request.CloseSession(id), id);
        if (p.txn == null) {
            log.warn("cannot expire session 0x{}: {}", Long.toHexString(id), p.failure.message());
            sessions.remove(id);
            return;
        }
        sequencer.sequence(p);
    }

    /** A CloseSession txn was applied and answered: close the session's connection if this server holds it. */
    void disconnectClosed(long sessionId) {
        Connection c = bySession.remove(sessionId);
        if (c != null) {
            c.control(Connection.Control.CLOSE);
        }
    }

    /** A client's close was sequenced without a txn (its prepare failed): forget the session here all the same. */
    void closedWithoutTxn(long sessionId) {
        sessions.remove(sessionId);
        watches.removeSession(sessionId);
        disconnectClosed(sessionId);
    }

    /** A connection went away: its session lives on until it reconnects or expires; its watches go. */
    void disconnected(Connection c) {
        long id = c.sessionId;
        if (id != 0 && bySession.get(id) == c) {
            bySession.remove(id);
            watches.removeSession(id);
        }
    }

    /** Live sessions (for tests and metrics). */
    int sessionCount() {
        return sessions.size();
    }
}
