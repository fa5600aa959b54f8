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

    /** Hands the queued messages to the event loop: one task, one flush. */
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
            channel.eventLoop().execute(() -> writeOut(batch, replies));
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // the server's event loops are shut down (stop or kill): the connection is gone with them
        }
    }

    // ---- event loop ----

    private void writeOut(List<Object> batch, int replies) {
        boolean close = batch.contains(Control.CLOSE);
        io.netty.channel.ChannelFuture last = null;
        for (Object o : batch) {
            if (o instanceof Message m) {
                if (close) {
                    last = channel.write(m);
                } else {
                    channel.write(m, channel.voidPromise());
                }
                if (handler.overOutboundCap()) {
                    handler.replied(replies); // closes the connection: encode nothing more for it
                    return;
                }
            } else if (o == Control.ATTACHED) {
                handler.attached(timeoutMs);
            } else if (o == Control.CLOSE) {
                break;
            }
        }
        channel.flush();
        if (close) {
            handler.closing();
            if (last == null) {
                channel.close();
            } else {
                last.addListener(ChannelFutureListener.CLOSE);
            }
        }
        handler.replied(replies);
    }

    @Override
    public String toString() {
        return String.valueOf(channel.remoteAddress()) + (sessionId == 0 ? "" : " session 0x" + Long.toHexString(sessionId));
    }
}
