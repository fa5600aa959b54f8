package dev.zkr.server;

import dev.zkr.wire.Message;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of one client connection. Fields are split by owner thread: the core thread prepares outgoing
 * messages and tracks the connection's session and held reads; the channel's event loop writes them, counts
 * requests in flight and switches reading off while too many are (backpressure).
 */
final class Connection {

    /** Outgoing control steps, executed on the event loop in order with the messages around them. */
    enum Control {
        /** The handshake is done: start serving requests and liveness checks. */
        ATTACHED,
        /** Flush, then close the connection. */
        CLOSE
    }

    final Channel channel;
    private final ConnectionHandler handler;
    private final Outbox outbox;

    // ---- core thread only ----
    /** The attached session, 0 before the handshake completes. */
    volatile long sessionId;
    /** Negotiated session timeout, set at attach. */
    int timeoutMs;
    /** True once the core thread has seen this connection close (or its session re-attached elsewhere). */
    boolean closed;
    /** Requests of this connection waiting behind its own writes: {@link Core.Pending} entries and held reads. */
    final ArrayDeque<Object> queue = new ArrayDeque<>();
    private List<Object> outgoing = new ArrayList<>();
    private int outgoingReplies;
    boolean dirty;

    Connection(Channel channel, ConnectionHandler handler, Outbox outbox) {
        this.channel = channel;
        this.handler = handler;
        this.outbox = outbox;
    }

    // ---- core thread ----

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

    /** Hands the queued messages to the event loop: one task, one flush (or a few, for a long batch). */
    void flush() {
        List<Object> batch = outgoing;
        int replies = outgoingReplies;
        outgoing = new ArrayList<>();
        outgoingReplies = 0;
        dirty = false;
        if (batch.isEmpty()) {
            return;
        }
        try {
            channel.eventLoop().execute(() -> enqueue(new Batch(batch, replies)));
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // the server's event loops are shut down (stop or kill): the connection is gone with them
        }
    }

    // ---- event loop ----

    /** Most messages encoded for one connection in one event-loop task before the others sharing the loop. */
    static final int MESSAGES_PER_TURN = 128;

    /** A round's messages for this connection; {@code next} is the first not yet written. */
    private static final class Batch {
        final List<Object> items;
        final int replies;
        /** The batch ends the connection: its messages are written with futures, to close after the last. */
        final boolean closes;
        int next;

        Batch(List<Object> items, int replies) {
            this.items = items;
            this.replies = replies;
            this.closes = items.contains(Control.CLOSE);
        }
    }

    /** Batches handed over and not yet written, in order (event loop only). */
    private final ArrayDeque<Batch> toWrite = new ArrayDeque<>();
    /** The future of the last message before a CLOSE step. */
    private io.netty.channel.ChannelFuture lastBeforeClose;
    private boolean done;

    private void enqueue(Batch b) {
        if (done) {
            return;
        }
        toWrite.addLast(b);
        if (toWrite.size() == 1) {
            writeTurn();
        }
    }

    /**
     * Writes at most {@link #MESSAGES_PER_TURN} messages and flushes; if more wait, the rest goes to the back of the
     * event loop's task queue, so a connection with a huge batch (a fan-out of watch events to a slow reader) does
     * not hold up the other connections of its event loop while its messages are encoded.
     */
    private void writeTurn() {
        int written = 0;
        int replies = 0;
        while (!toWrite.isEmpty() && written < MESSAGES_PER_TURN) {
            Batch b = toWrite.peekFirst();
            while (b.next < b.items.size() && written < MESSAGES_PER_TURN) {
                Object o = b.items.get(b.next++);
                if (o instanceof Message m) {
                    written++;
                    if (b.closes) {
                        lastBeforeClose = channel.write(m);
                    } else {
                        channel.write(m, channel.voidPromise());
                    }
                    if (handler.overOutboundCap()) {
                        stop(replies + b.replies); // closes the connection: encode nothing more for it
                        return;
                    }
                } else if (o == Control.ATTACHED) {
                    handler.attached(timeoutMs);
                } else if (o == Control.CLOSE) {
                    channel.flush();
                    handler.closing();
                    if (lastBeforeClose == null) {
                        channel.close();
                    } else {
                        lastBeforeClose.addListener(ChannelFutureListener.CLOSE);
                    }
                    stop(replies + b.replies);
                    return;
                }
            }
            if (b.next == b.items.size()) {
                toWrite.pollFirst();
                replies += b.replies;
            }
        }
        channel.flush();
        handler.replied(replies);
        if (!toWrite.isEmpty() && channel.isActive()) {
            channel.eventLoop().execute(this::writeTurn);
        } else if (!channel.isActive()) {
            toWrite.clear();
        }
    }

    /** Nothing more is written to this connection. */
    private void stop(int replies) {
        done = true;
        toWrite.clear();
        handler.replied(replies);
    }

    @Override
    public String toString() {
        return String.valueOf(channel.remoteAddress()) + (sessionId == 0 ? "" : " session 0x" + Long.toHexString(sessionId));
    }
}
