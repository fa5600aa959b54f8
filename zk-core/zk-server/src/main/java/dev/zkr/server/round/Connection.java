package dev.zkr.server.round;

import dev.zkr.auth.AuthAttempts;
import dev.zkr.wire.Message;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of one client connection, as the round sees it: the connection's session and held reads,
 * and the messages a round queues for it, handed once per round ({@link #flush}) to its {@link Sink} — the socket's
 * event loop ({@code ChannelSink}, which writes them, counts requests in flight and applies backpressure) or, in the
 * simulator, a simulated client.
 */
public final class Connection {

    /** Outgoing control steps, executed on the event loop in order with the messages around them. */
    public enum Control {
        /** The handshake is done: start serving requests and liveness checks. */
        ATTACHED,
        /** Flush, then close the connection. */
        CLOSE
    }

    /** Where a connection's messages go once a round is over. */
    public interface Sink {
        /**
         * Takes one round's messages in order: {@link Message}s and {@link Control} steps, {@code replies} of them
         * replies to requests (inside a round; the sink owns the list from now on).
         */
        void deliver(List<Object> batch, int replies);

        /**
         * The executor (a socket's event loop) this sink's batches are written on, or null. The {@link Outbox} hands
         * the batches of every sink of one loop to it in one task ({@link #take}), instead of one task per
         * connection: a round that fans out to many connections wakes each loop once.
         */
        default java.util.concurrent.Executor loop() {
            return null;
        }

        /** Takes one round's batch, already on {@link #loop()} (only called for sinks that have a loop). */
        default void take(List<Object> batch, int replies) {
            deliver(batch, replies);
        }
    }

    private final Sink sink;
    private final Outbox outbox;

    // ---- round state (docs/architecture.md, Threads); the two volatiles are also set on the event loop ----
    /**
     * The subject (RFC 2253 X.500 name) of the verified TLS client certificate this connection presented, or null;
     * set before its ConnectRequest is handed to the core. What an {@code x509} ACL scheme authenticates as.
     */
    volatile String certificateSubject;
    /** The attached session, 0 before the handshake completes. */
    volatile long sessionId;
    /** Negotiated session timeout, set at attach. */
    int timeoutMs;
    /** True once a round has seen this connection close (or its session re-attached elsewhere). */
    boolean closed;
    /**
     * True for zkr's own protocol, whose client re-sends a write with its original xid after a lost reply: a write
     * already applied is answered with its saved reply (docs/exactly-once.md). False for ZooKeeper's protocol, whose
     * clients never re-send (a new client attached to an old session may even start its xids again).
     */
    boolean exactlyOnce = true;
    /**
     * The highest acknowledgement its client sent ({@link Message.AckedRequest}: the lowest xid it still waited for;
     * 0: none): written into the txns of its writes, whose apply drops the session's saved replies before it.
     */
    int acked;
    /** A follower's: the xid of the last write it forwarded for this connection (0: none). */
    int lastForwardedWrite;
    /**
     * This connection's requests still owed a reply, in request order: the places of those sequenced, forwarded or
     * answered early, then those not yet routed (reads behind its own writes); see {@link ReplyQueue}.
     */
    final ArrayDeque<ReplyQueue.Entry> queue = new ArrayDeque<>(4); // grows on demand (per-session memory)
    private List<Object> outgoing = new ArrayList<>();
    private int outgoingReplies;
    boolean dirty;
    /**
     * The ids this connection authenticated as: {@code ip:<address>} from the start (see {@link #remoteAddress}) and
     * its certificate's {@code x509} ids, both set on the event loop before its first message reaches a round, plus
     * what its {@link Message.AuthRequest}s gained in rounds. They live and die with the connection: a client re-sends
     * its authentication on every reconnect.
     */
    final List<dev.zkr.client.Id> authIds = new ArrayList<>();
    /** The client's address, or null (simulated connections). */
    private String remoteAddress;
    /** Refused authentications and the wait they imposed (round state). */
    final AuthAttempts authAttempts = new AuthAttempts();

    Connection(Sink sink, Outbox outbox) {
        this.sink = sink;
        this.outbox = outbox;
    }

    /** Takes a client's acknowledgement (only forward: a stale one says less; serial-number order, as xids). */
    void acknowledged(int lowestUnanswered) {
        if (exactlyOnce && lowestUnanswered != 0 && (acked == 0 || lowestUnanswered - acked > 0)) {
            acked = lowestUnanswered;
        }
    }

    /** This connection speaks ZooKeeper's protocol: its writes keep ZooKeeper's semantics (on the event loop, first). */
    public void zooKeeperProtocol() {
        exactlyOnce = false;
    }

    /** The attached session's id, 0 before the handshake completes (any thread: for operators' listings). */
    public long sessionId() {
        return sessionId;
    }

    /** The negotiated session timeout, set when the handshake attached a session (0 before). */
    public int timeoutMs() {
        return timeoutMs;
    }

    /** See {@link #certificateSubject}. */
    public String certificateSubject() {
        return certificateSubject;
    }

    /**
     * Sets the subject of the verified client certificate and the ids the {@code x509} scheme grants for it (on the
     * event loop, before the ConnectRequest reaches the core).
     */
    public void certificate(String subject, dev.zkr.auth.Authorizer authorizer) {
        this.certificateSubject = subject;
        if (subject != null) {
            for (dev.zkr.client.Id id : authorizer.authenticate(dev.zkr.auth.X509AuthProvider.SCHEME,
                    new dev.zkr.auth.AuthProvider.ClientInfo(remoteAddress, subject), null)) {
                if (!authIds.contains(id)) {
                    authIds.add(id);
                }
            }
        }
    }

    /** Sets the client's address and the {@code ip} id it implies (before the first message reaches the core). */
    public void remoteAddress(String address) {
        this.remoteAddress = address;
        if (address != null) {
            authIds.add(new dev.zkr.client.Id("ip", address));
        }
    }

    String remoteAddress() {
        return remoteAddress;
    }

    // ---- inside a round ----

    /** Queues a reply (counted against the requests in flight). */
    void reply(Message.Reply reply) {
        outgoing.add(reply);
        outgoingReplies++;
        outbox.mark(this);
    }

    /** Queues a message that is not a reply (watch event, handshake answer). */
    void send(Message message) {
        outgoing.add(message);
        outbox.mark(this);
    }

    void control(Control control) {
        outgoing.add(control);
        outbox.mark(this);
    }

    boolean hasOutgoing() {
        return !outgoing.isEmpty();
    }

    /** Hands the queued messages to the sink: for a socket, one event-loop task and one flush (or a few). */
    void flush() {
        List<Object> batch = outgoing;
        int replies = outgoingReplies;
        dirty = false;
        if (batch.isEmpty()) {
            return;
        }
        outgoing = new ArrayList<>();
        outgoingReplies = 0;
        sink.deliver(batch, replies);
    }

    /**
     * Takes the queued messages from the connection and returns the step that gives them to the sink, to be run on
     * the sink's {@link #loop()} (the {@link Outbox} runs the steps of one loop in one task); null if nothing is
     * queued. Only for a sink that has a loop.
     */
    Runnable handOver() {
        List<Object> batch = outgoing;
        int replies = outgoingReplies;
        dirty = false;
        if (batch.isEmpty()) {
            return null;
        }
        outgoing = new ArrayList<>();
        outgoingReplies = 0;
        return () -> sink.take(batch, replies);
    }

    /** The executor the sink writes on, or null (see {@link Sink#loop()}). */
    java.util.concurrent.Executor loop() {
        return sink.loop();
    }

    /** The peer's address as the sink knows it (for operators: the admin endpoint's session list). */
    String remote() {
        return String.valueOf(sink);
    }

    @Override
    public String toString() {
        return sink + (sessionId == 0 ? "" : " session 0x" + Long.toHexString(sessionId));
    }
}
