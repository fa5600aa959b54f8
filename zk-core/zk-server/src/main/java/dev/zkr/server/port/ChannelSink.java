package dev.zkr.server.port;

import dev.zkr.server.round.Connection;
import dev.zkr.wire.Message;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The socket side of a {@link Connection}: takes each round's messages from the thread that ran it and writes them on the
 * channel's event loop, a bounded number per turn, running the {@link Connection.Control} steps in order with them
 * (start serving after the handshake, close after the last message) and telling the {@link ConnectionHandler} how
 * many replies went out (backpressure, outbound bounds).
 */
final class ChannelSink implements Connection.Sink {

    private final Channel channel;
    private final ConnectionHandler handler;

    ChannelSink(Channel channel, ConnectionHandler handler) {
        this.channel = channel;
        this.handler = handler;
    }

    /** One task for the event loop (called at the end of a round). */
    @Override
    public void deliver(List<Object> batch, int replies) {
        try {
            channel.eventLoop().execute(() -> enqueue(new Batch(batch, replies)));
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // the server's event loops are shut down (stop or kill): the connection is gone with them
        }
    }

    @Override
    public java.util.concurrent.Executor loop() {
        return channel.eventLoop();
    }

    /** One round's batch, handed over by the {@code Outbox} on this channel's event loop. */
    @Override
    public void take(List<Object> batch, int replies) {
        enqueue(new Batch(batch, replies));
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
            this.closes = items.contains(Connection.Control.CLOSE);
        }
    }

    /** Batches handed over and not yet written, in order (event loop only). */
    private final ArrayDeque<Batch> toWrite = new ArrayDeque<>(2); // grows on demand (per-session memory)
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
                } else if (o == Connection.Control.ATTACHED) {
                    handler.attached();
                } else if (o == Connection.Control.CLOSE) {
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
        return String.valueOf(channel.remoteAddress());
    }
}
