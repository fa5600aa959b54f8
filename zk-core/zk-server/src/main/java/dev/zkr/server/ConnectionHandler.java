package dev.zkr.server;

import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Per-connection protocol logic on the event loop: the handshake state machine, forwarding requests to the
 * {@link Core} in batches (one hand-off per socket read), backpressure, liveness, and closing the connection with
 * one log line on any protocol violation.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private enum State { AWAIT_CONNECT, CONNECTING, ATTACHED, CLOSING }

    private final ServerConfig config;
    private final Core core;
    private final OutboundBudget budget;
    /** This connection's unsent bytes counted in the server-wide budget (0 while it drains). */
    private long budgeted;
    /** Fires if the connection stays above its high water mark for the slow-reader timeout. */
    private ScheduledFuture<?> slowReaderTimer;
    private Connection connection;
    private State state = State.AWAIT_CONNECT;
    private List<Core.Inbound> batch = new ArrayList<>();
    /** Requests that arrived while the handshake was in progress. */
    private List<Message.Request> early;
    private int inFlight;
    private boolean readingPaused;
    private ScheduledFuture<?> handshakeTimer;

    ConnectionHandler(ServerConfig config, Core core, OutboundBudget budget) {
        this.config = config;
        this.core = core;
        this.budget = budget;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        connection = new Connection(ctx.channel(), this, core.outbox());
        long ms = config.handshakeTimeout().toMillis();
        handshakeTimer = ctx.executor().schedule(() -> {
            if (state == State.AWAIT_CONNECT) { // once the request is in, the wait is the server's, not the client's
                fail(ctx, "no handshake within " + ms + " ms", false);
            }
        }, ms, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Message m)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        switch (state) {
            case AWAIT_CONNECT -> {
                if (!(m instanceof Message.ConnectRequest cr)) {
                    fail(ctx, "expected ConnectRequest first, got " + m.getClass().getSimpleName(), true);
                } else if (cr.protocolVersion() != Message.PROTOCOL_VERSION) {
                    fail(ctx, "unsupported protocol version " + cr.protocolVersion() + " (server speaks "
                            + Message.PROTOCOL_VERSION + ")", true);
                } else {
                    state = State.CONNECTING;
                    handshakeTimer.cancel(false);
                    batch.add(new Core.Inbound(connection, cr));
                }
            }
            case CONNECTING -> {
                if (m instanceof Message.Request r) {
                    if (early == null) {
                        early = new ArrayList<>();
                    }
                    early.add(r);
                    inFlight++;
                    checkBackpressure(ctx);
                } else {
                    fail(ctx, "unexpected " + m.getClass().getSimpleName() + " during the handshake", true);
                }
            }
            case ATTACHED -> {
                if (m instanceof Message.Request r) {
                    batch.add(new Core.Inbound(connection, r));
                    inFlight++;
                    checkBackpressure(ctx);
                } else {
                    fail(ctx, "unexpected " + m.getClass().getSimpleName() + " after the handshake", true);
                }
            }
            case CLOSING -> {
                // drop: the connection is going away
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        submitBatch();
        ctx.fireChannelReadComplete();
    }

    private void submitBatch() {
        if (!batch.isEmpty()) {
            List<Core.Inbound> b = batch;
            batch = new ArrayList<>();
            core.submit(b);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
        batch.clear();
        state = State.CLOSING;
        cancelSlowReaderTimer();
        budget.update(budgeted, 0);
        budgeted = 0;
        core.disconnected(connection);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        checkOutbound(ctx);
        checkBackpressure(ctx);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            fail(ctx, "no request or ping within the session timeout of " + connection.timeoutMs + " ms", false);
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CLOSING) {
            return;
        }
        if (cause instanceof OutOfMemoryError) {
            // a buffer for this connection could not be allocated: drop it, not the server
            fail(ctx, "out of memory for its buffers: " + firstLine(cause.getMessage()), false);
        } else if (cause instanceof IOException) {
            // the peer reset or vanished: nothing to tell it
            closeQuietly(ctx, "connection error: " + cause.getMessage());
        } else {
            Throwable c = cause instanceof DecoderException && cause.getCause() != null
                    && !(cause instanceof TooLongFrameException) ? cause.getCause() : cause;
            fail(ctx, "bad input: " + c.getClass().getSimpleName() + ": " + firstLine(c.getMessage()), true);
        }
    }

    // ---- called by Connection on the event loop ----

    /** The core attached a session: start liveness checks and serve the requests that arrived meanwhile. */
    void attached(int timeoutMs) {
        if (state != State.CONNECTING) {
            return;
        }
        state = State.ATTACHED;
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
        connection.channel.pipeline().addBefore("connection", "idle",
                new IdleStateHandler(timeoutMs, 0, 0, TimeUnit.MILLISECONDS));
        if (early != null) {
            for (Message.Request r : early) {
                batch.add(new Core.Inbound(connection, r));
            }
            early = null;
            submitBatch();
        }
    }

    /** The core decided to close this connection (session closed, expired or refused). */
    void closing() {
        state = State.CLOSING;
    }

    /**
     * Messages were written and flushed: enforce the outbound bounds (which may close the connection), then
     * release backpressure if it was applied.
     */
    void replied(int replies) {
        ChannelHandlerContext ctx = connection.channel.pipeline().context(this);
        if (ctx != null) {
            checkOutbound(ctx);
        }
        inFlight -= replies;
        if (readingPaused) {
            checkBackpressure(connection.channel.pipeline().context(this));
        }
    }

    private void checkBackpressure(ChannelHandlerContext ctx) {
        if (ctx == null) {
            return;
        }
        boolean pause = inFlight >= config.maxInFlightPerConnection() || !ctx.channel().isWritable();
        boolean resume = inFlight <= config.maxInFlightPerConnection() / 2 && ctx.channel().isWritable();
        if (pause && !readingPaused) {
            readingPaused = true;
            ctx.channel().config().setAutoRead(false);
        } else if (resume && readingPaused) {
            readingPaused = false;
            ctx.channel().config().setAutoRead(true);
        }
    }

    /**
     * Bounds what waits to be sent to this peer: over {@code maxOutboundBytesPerConnection}, or above the high water
     * mark while the server-wide budget is spent, the connection is closed (watch events are never dropped from a
     * live connection: the client re-registers its watches when it reconnects); above the high water mark a timer
     * closes it after {@code slowReaderTimeout}.
     */
    private void checkOutbound(ChannelHandlerContext ctx) {
        if (state == State.CLOSING) {
            return;
        }
        io.netty.channel.ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        long pending = out == null ? 0 : out.totalPendingWriteBytes();
        boolean draining = ctx.channel().isWritable();
        long share = draining ? 0 : pending;
        boolean withinBudget = budget.update(budgeted, share);
        budgeted = share;
        if (pending > config.maxOutboundBytesPerConnection()) {
            fail(ctx, pending + " bytes wait to be sent, over maxOutboundBytesPerConnection ("
                    + config.maxOutboundBytesPerConnection() + "): the client does not read", false);
        } else if (!withinBudget) {
            fail(ctx, "not draining its " + pending + " unsent bytes while the server holds " + budget.held()
                    + " for such connections, over maxOutboundBytesTotal (" + budget.limit() + ")", false);
        } else if (draining) {
            cancelSlowReaderTimer();
        } else if (slowReaderTimer == null) {
            long ms = config.slowReaderTimeout().toMillis();
            slowReaderTimer = ctx.executor().schedule(() -> {
                slowReaderTimer = null;
                if (!ctx.channel().isWritable()) {
                    fail(ctx, "its unsent replies and events stayed above the high water mark ("
                            + config.outboundHighWaterMark() + " bytes) for more than " + ms
                            + " ms (slowReaderTimeout): the client does not read", false);
                }
            }, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** True if this connection's unsent bytes exceed {@code maxOutboundBytesPerConnection} (event loop). */
    boolean overOutboundCap() {
        io.netty.channel.ChannelOutboundBuffer out = connection.channel.unsafe().outboundBuffer();
        return out != null && out.totalPendingWriteBytes() > config.maxOutboundBytesPerConnection();
    }

    private void cancelSlowReaderTimer() {
        if (slowReaderTimer != null) {
            slowReaderTimer.cancel(false);
            slowReaderTimer = null;
        }
    }

    /** Logs one line, tells the peer why (if it speaks the protocol) and closes. */
    private void fail(ChannelHandlerContext ctx, String why, boolean tellPeer) {
        if (state == State.CLOSING) {
            return;
        }
        state = State.CLOSING;
        cancelSlowReaderTimer();
        log.warn("closing connection from {}: {}", connection, why);
        if (tellPeer && ctx.channel().isActive()) {
            ctx.writeAndFlush(new Message.ProtocolError(ZkException.Code.MARSHALLING_ERROR.intValue(), why))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    private void closeQuietly(ChannelHandlerContext ctx, String why) {
        state = State.CLOSING;
        log.debug("closing connection from {}: {}", connection, why);
        ctx.close();
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
