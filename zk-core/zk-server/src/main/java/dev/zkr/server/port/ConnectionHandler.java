package dev.zkr.server.port;

import dev.zkr.server.ProblemLog;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.round.Connection;
import dev.zkr.server.round.Core;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
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

    // kinds of problem, each rate-limited on its own in the problem log
    static final String HANDSHAKE_TIMEOUTS = "connections closed for no handshake";
    static final String BAD_INPUT = "connections closed for bad input";
    static final String IDLE = "idle connections closed";
    static final String BUFFER_FAILURES = "connections closed for want of buffer memory";
    static final String SLOW_READERS = "slow readers closed";
    static final String OUTBOUND_CAP = "connections closed at maxOutboundBytesPerConnection";
    static final String OUTBOUND_BUDGET = "connections closed at maxOutboundBytesTotal";

    private enum State { AWAIT_CONNECT, CONNECTING, ATTACHED, CLOSING }

    private final ServerConfig config;
    private final Core core;
    private final OutboundBudget budget;
    private final ProblemLog problems;
    private final InboundBudget inbound;
    /** Bytes read from this connection's socket and not yet released (partial frame + requests in flight). */
    private long inboundHeld;
    /** Frame sizes of this connection's requests in flight, in order (released as they are answered). */
    private final java.util.ArrayDeque<Integer> inFlightFrameBytes = new java.util.ArrayDeque<>(4);
    /** Closes this connection when it stays silent for its session timeout (from the attach on). */
    private final IdleSweeper idle;
    /** When the session attached (nanoTime): the idle clock starts there. */
    private long attachedAt;
    /** Size of the frame being decoded (set by the frame meter just before its message arrives). */
    private int currentFrameBytes;
    /** Waiting in the inbound budget to be told that the server-wide total is within its limit again. */
    private boolean awaitingInbound;
    /** This connection's unsent bytes counted in the server-wide budget (0 while it drains). */
    private long budgeted;
    /** Fires if the connection stays above its high water mark for the slow-reader timeout. */
    private ScheduledFuture<?> slowReaderTimer;
    private Connection connection;
    private Channel channel;
    private State state = State.AWAIT_CONNECT;
    private List<Core.Inbound> batch = new ArrayList<>();
    /** Requests that arrived while the handshake was in progress. */
    private List<Message.Request> early;
    private int inFlight;
    private boolean readingPaused;
    private ScheduledFuture<?> handshakeTimer;
    /** Times this connection's requests (the four-letter words' latency, and the metrics when kept). */
    private final RequestTimer timer;
    /** When the last socket read arrived (nanoTime): the arrival time of its requests. */
    private long readAt;
    /** Requests read and replies written on this connection (the four-letter words' counts; event loop). */
    private long received;
    private long sent;
    /** When the session attached (epoch ms), 0 before. */
    private long established;

    ConnectionHandler(ServerConfig config, Core core, OutboundBudget budget, InboundBudget inbound,
                      ProblemLog problems, RequestMetrics metrics, LatencyStats latency, IdleSweeper idle) {
        this.timer = new RequestTimer(metrics, latency);
        this.idle = idle;
        this.config = config;
        this.core = core;
        this.budget = budget;
        this.inbound = inbound;
        this.problems = problems;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        connection = core.open(new ChannelSink(channel, this));
        if (channel.remoteAddress() instanceof java.net.InetSocketAddress a && a.getAddress() != null) {
            connection.remoteAddress(a.getAddress().getHostAddress()); // the ip scheme's id
        }
        long ms = config.handshakeTimeout().toMillis();
        handshakeTimer = ctx.executor().schedule(() -> {
            if (state == State.AWAIT_CONNECT) { // once the request is in, the wait is the server's, not the client's
                fail(ctx, HANDSHAKE_TIMEOUTS, "no handshake within " + ms + " ms", false);
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
        received++;
        switch (state) {
            case AWAIT_CONNECT -> {
                if (!(m instanceof Message.ConnectRequest cr)) {
                    fail(ctx, BAD_INPUT, "expected ConnectRequest first, got " + m.getClass().getSimpleName(), true);
                } else if (cr.protocolVersion() != Message.PROTOCOL_VERSION) {
                    fail(ctx, BAD_INPUT, "unsupported protocol version " + cr.protocolVersion() + " (server speaks "
                            + Message.PROTOCOL_VERSION + ")", true);
                } else {
                    state = State.CONNECTING;
                    handshakeTimer.cancel(false);
                    connection.certificate(ClientPortTls.clientSubject(ctx.pipeline()), config.authorizer());
                    releaseInbound(currentFrameBytes); // one per connection: not held until the session exists
                    batch.add(new Core.Inbound(connection, cr));
                }
            }
            case CONNECTING -> {
                if (m instanceof Message.AckedRequest a && !wellFormed(a)) {
                    fail(ctx, BAD_INPUT, "an AckedRequest must carry one request", true);
                } else if (m instanceof Message.Request r) {
                    if (early == null) {
                        early = new ArrayList<>();
                    }
                    early.add(r);
                    inFlight++;
                    inFlightFrameBytes.addLast(currentFrameBytes);
                    timer.received(r, readAt);
                    checkBackpressure(ctx);
                } else {
                    fail(ctx, BAD_INPUT, "unexpected " + m.getClass().getSimpleName() + " during the handshake", true);
                }
            }
            case ATTACHED -> {
                if (m instanceof Message.AckedRequest a && !wellFormed(a)) {
                    fail(ctx, BAD_INPUT, "an AckedRequest must carry one request", true);
                } else if (m instanceof Message.Request r) {
                    batch.add(new Core.Inbound(connection, r));
                    inFlight++;
                    inFlightFrameBytes.addLast(currentFrameBytes);
                    timer.received(r, readAt);
                    checkBackpressure(ctx);
                } else {
                    fail(ctx, BAD_INPUT, "unexpected " + m.getClass().getSimpleName() + " after the handshake", true);
                }
            }
            case CLOSING -> {
                // drop: the connection is going away
            }
        }
    }

    /** An acknowledgement carries one request, not another acknowledgement (the round unwraps one level). */
    private static boolean wellFormed(Message.AckedRequest a) {
        return a.request() != null && !(a.request() instanceof Message.AckedRequest);
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
        idle.forget(this, ctx.channel().eventLoop());
        state = State.CLOSING;
        cancelSlowReaderTimer();
        budget.update(budgeted, 0);
        budgeted = 0;
        inFlightFrameBytes.clear();
        timer.closed();
        releaseInbound(inboundHeld);
        core.disconnected(connection);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        checkOutbound(ctx);
        checkBackpressure(ctx);
        ctx.fireChannelWritabilityChanged();
    }

    /** Closes this connection if it read nothing for its session timeout ({@link IdleSweeper}, on its loop). */
    void closeIfIdle(long now) {
        if (state == State.ATTACHED
                && now - Math.max(readAt, attachedAt) > TimeUnit.MILLISECONDS.toNanos(connection.timeoutMs())) {
            fail(channel.pipeline().context(this), IDLE, "no request or ping within the session timeout of "
                    + connection.timeoutMs() + " ms", false);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CLOSING) {
            return;
        }
        if (cause instanceof OutOfMemoryError) {
            // a buffer for this connection could not be allocated: drop it, not the server
            fail(ctx, BUFFER_FAILURES, "out of memory for its buffers: " + firstLine(cause.getMessage()), false);
        } else if (cause instanceof IOException || ClientPortTls.isHandshakeFailure(ctx.pipeline(), cause)) {
            // the peer reset or vanished, or its TLS handshake failed (logged by the TLS layer): nothing to tell it
            closeQuietly(ctx, "connection error: " + cause.getMessage());
        } else {
            Throwable c = cause instanceof DecoderException && cause.getCause() != null
                    && !(cause instanceof TooLongFrameException) ? cause.getCause() : cause;
            fail(ctx, BAD_INPUT, "bad input: " + c.getClass().getSimpleName() + ": " + firstLine(c.getMessage()), true);
        }
    }

    // ---- called by Connection on the event loop ----

    /**
     * Requests of this connection read and not yet answered, for the outstanding-requests gauge: read from another
     * thread without synchronisation (the count belongs to the event loop), so a moment stale at worst.
     */
    int inFlightForMetrics() {
        return inFlight;
    }

    /** The core attached a session: start liveness checks and serve the requests that arrived meanwhile. */
    void attached() {
        if (state != State.CONNECTING) {
            return;
        }
        state = State.ATTACHED;
        established = System.currentTimeMillis();
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
            handshakeTimer = null; // not kept for the connection's life (64 B per session)
        }
        attachedAt = System.nanoTime();
        idle.watch(this, channel.eventLoop());
        if (early != null) {
            for (Message.Request r : early) {
                batch.add(new Core.Inbound(connection, r));
            }
            early = null;
            submitBatch();
        }
    }

    /** The subject of the connection's verified client certificate, or null (see {@link Connection}). */
    String certificateSubject() {
        Connection c = connection;
        return c == null ? null : c.certificateSubject();
    }

    /**
     * The connection asked a four-letter word: it speaks no protocol, is answered and closed (no handshake timeout,
     * nothing more read).
     */
    void answeringWord() {
        state = State.CLOSING;
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
    }

    /** This connection as {@code stat} and {@code cons} list it (from any thread: counts a moment stale at worst). */
    dev.zkr.server.zookeeper.FourLetterReplies.Client describe() {
        Channel ch = channel;
        Connection c = connection;
        if (ch == null) {
            return null; // not active yet
        }
        return new dev.zkr.server.zookeeper.FourLetterReplies.Client(String.valueOf(ch.remoteAddress()),
                ch.config().isAutoRead() ? 1 : 0, inFlight, received, sent, c == null ? 0 : c.sessionId(),
                established, c == null ? 0 : c.timeoutMs());
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
        ChannelHandlerContext ctx = channel.pipeline().context(this);
        if (ctx != null) {
            checkOutbound(ctx);
        }
        inFlight -= replies;
        sent += replies;
        if (replies > 0) {
            timer.replied(replies, System.nanoTime());
        }
        long answered = 0;
        for (int i = 0; i < replies && !inFlightFrameBytes.isEmpty(); i++) {
            answered += inFlightFrameBytes.pollFirst();
        }
        releaseInbound(answered);
        if (readingPaused) {
            checkBackpressure(channel.pipeline().context(this));
        }
    }

    private void checkBackpressure(ChannelHandlerContext ctx) {
        if (ctx == null) {
            return;
        }
        // over the server-wide inbound budget, a connection that holds inbound bytes waits; one that holds none
        // may read (so a client with nothing in flight is never starved by others' partial frames)
        boolean inboundFull = inboundHeld > 0 && inbound.over();
        boolean pause = inFlight >= config.maxInFlightPerConnection() || !ctx.channel().isWritable() || inboundFull;
        boolean resume = inFlight <= config.maxInFlightPerConnection() / 2 && ctx.channel().isWritable()
                && !inboundFull;
        if (pause && !readingPaused) {
            readingPaused = true;
            ctx.channel().config().setAutoRead(false);
        } else if (resume && readingPaused) {
            readingPaused = false;
            ctx.channel().config().setAutoRead(true);
        }
        if (readingPaused && inboundFull && !awaitingInbound) {
            awaitingInbound = true;
            inbound.await(() -> {
                try {
                    ctx.executor().execute(() -> {
                        awaitingInbound = false;
                        checkBackpressure(ctx);
                    });
                } catch (java.util.concurrent.RejectedExecutionException stopped) {
                    // the server's event loops are shut down: nothing to resume
                }
            });
        }
    }

    private void releaseInbound(long bytes) {
        long b = Math.min(bytes, inboundHeld);
        if (b > 0) {
            inboundHeld -= b;
            inbound.release(b);
        }
    }

    /**
     * Counts the bytes read from the socket (first in the pipeline, before framing), and holds back the reads the
     * frame decoder asks for to complete a partial frame while this connection is paused (a paused connection
     * reads nothing).
     */
    ChannelHandler rawMeter() {
        return new ChannelDuplexHandler() {
            @Override
            public void read(ChannelHandlerContext ctx) {
                if (!readingPaused) {
                    ctx.read();
                }
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ByteBuf buf && state != State.CLOSING) {
                    readAt = System.nanoTime(); // one clock read per socket read, not per request
                    inboundHeld += buf.readableBytes();
                    inbound.add(buf.readableBytes());
                    ChannelHandlerContext mine = ctx.pipeline().context(ConnectionHandler.this);
                    ctx.fireChannelRead(msg);
                    checkBackpressure(mine);
                } else {
                    ctx.fireChannelRead(msg);
                }
            }
        };
    }

    /** Notes the size of each frame (with its length prefix) before it is decoded into a message. */
    /** The connection speaks ZooKeeper's protocol (see {@code Connection.zooKeeperProtocol}). */
    void zooKeeperProtocol() {
        connection.zooKeeperProtocol();
    }

    ChannelHandler frameMeter() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ByteBuf frame) {
                    currentFrameBytes = frame.readableBytes() + 4;
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    /**
     * Bounds what waits to be sent to this peer: over {@code maxOutboundBytesPerConnection}, or above the high water
     * mark with at least a fair share of the server-wide budget while it is spent, the connection is closed (watch
     * events are never dropped from a live connection: the client re-registers its watches when it reconnects);
     * above the high water mark a timer closes it after {@code slowReaderTimeout}.
     */
    private void checkOutbound(ChannelHandlerContext ctx) {
        if (state == State.CLOSING) {
            return;
        }
        io.netty.channel.ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        long pending = out == null ? 0 : out.totalPendingWriteBytes();
        boolean draining = ctx.channel().isWritable();
        long share = draining ? 0 : pending;
        budget.update(budgeted, share);
        budgeted = share;
        if (pending > config.maxOutboundBytesPerConnection()) {
            fail(ctx, OUTBOUND_CAP, pending + " bytes wait to be sent, over maxOutboundBytesPerConnection ("
                    + config.maxOutboundBytesPerConnection() + "): the client does not read", false);
        } else if (budget.overFairShare(share)) {
            budget.closed();
            fail(ctx, OUTBOUND_BUDGET, "not draining its " + pending + " unsent bytes while the server holds "
                    + budget.held() + " for such connections, over maxOutboundBytesTotal (" + budget.limit() + ")",
                    false);
        } else if (draining) {
            cancelSlowReaderTimer();
        } else if (slowReaderTimer == null) {
            long ms = config.slowReaderTimeout().toMillis();
            slowReaderTimer = ctx.executor().schedule(() -> {
                slowReaderTimer = null;
                if (!ctx.channel().isWritable()) {
                    fail(ctx, SLOW_READERS, "its unsent replies and events stayed above the high water mark ("
                            + config.outboundHighWaterMark() + " bytes) for more than " + ms
                            + " ms (slowReaderTimeout): the client does not read", false);
                }
            }, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** True if this connection's unsent bytes exceed {@code maxOutboundBytesPerConnection} (event loop). */
    boolean overOutboundCap() {
        io.netty.channel.ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out != null && out.totalPendingWriteBytes() > config.maxOutboundBytesPerConnection();
    }

    private void cancelSlowReaderTimer() {
        if (slowReaderTimer != null) {
            slowReaderTimer.cancel(false);
            slowReaderTimer = null;
        }
    }

    /** Logs one line (rate-limited per kind), tells the peer why (if it speaks the protocol) and closes. */
    private void fail(ChannelHandlerContext ctx, String kind, String why, boolean tellPeer) {
        if (state == State.CLOSING) {
            return;
        }
        state = State.CLOSING;
        cancelSlowReaderTimer();
        problems.warn(kind, "closing connection from {}: {}", connection, why);
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
