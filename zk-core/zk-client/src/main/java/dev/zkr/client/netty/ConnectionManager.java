package dev.zkr.client.netty;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClientBuilder;
import dev.zkr.client.ZkClientConfig;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Frames;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import dev.zkr.wire.tls.SslContexts;
import dev.zkr.wire.tls.TlsRecords;
import io.netty.buffer.ByteBuf;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;

/**
 * The connection side of one client: connects to one server of the connect string at a time (failing over to the
 * next), performs the handshake, writes requests in batches, matches replies to requests, routes watch events,
 * sends heartbeats and detects dead connections, re-attaches the session and its watches after a disconnect and
 * reports session loss.
 *
 * <p>Threading: every field below "event loop only" is touched on the client's Netty event loop and nowhere else.
 * Callers hand requests over through a lock-free queue ({@link #submit}); outcomes go to the {@link EventThread}
 * in the order the server's messages arrived, never completed on the I/O thread.
 */
final class ConnectionManager {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);
    private static final long TICK_MS = 50;
    private static final byte[] NO_PASSWORD = new byte[0];
    private static final long NO_DEADLINE = Long.MAX_VALUE / 2;
    /**
     * The most writes in flight: the server keeps the replies of a session's last 1,024 writes at most to answer a
     * write sent again (docs/exactly-once.md, The bound), so more must wait. (Below that, a server that takes
     * acknowledgements keeps only the replies from the lowest xid this client still waits for.)
     */
    static final int WRITE_WINDOW = 1024;

    private final ZkClientConfig config;
    private final HostList hosts;
    private final EventLoop loop;
    private final EventThread events;
    private final WatchRegistry watches;
    private final Consumer<ConnectionState> stateSink;
    private final Bootstrap bootstrap;
    private final long attemptTimeoutNanos;
    private final CompletableFuture<Void> firstSession = new CompletableFuture<>();
    /** The client's TLS context, null for plaintext. */
    private final SslContext ssl;
    /** Why the last attempt failed, when it is worth telling (TLS problems); for the first session's error. */
    private volatile String lastFailure;

    private final ConcurrentLinkedQueue<OutstandingRequest> outbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    /** Authentication re-sent first on every connection (builder's, then each accepted addAuthInfo). */
    private final java.util.concurrent.CopyOnWriteArrayList<ZkClientConfig.AuthInfo> auths =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    /** A re-sent authentication the server refused: the next request fails with it (ZooKeeper's AUTH_FAILED). */
    private final java.util.concurrent.atomic.AtomicReference<ZkException> failedAuth =
            new java.util.concurrent.atomic.AtomicReference<>();

    private volatile long sessionId;
    private volatile int negotiatedTimeoutMs;
    private volatile int maxDataSize;
    private volatile ConnectionState state;
    private volatile boolean closing;
    private volatile boolean expiredForGood;

    // ---- event loop only ----
    /** True while the socket is not read because the event thread is behind (see {@link #pauseReading}). */
    private boolean readingPaused;
    private final ArrayDeque<OutstandingRequest> inFlight = new ArrayDeque<>();
    /** How many times one write is sent again after a SESSION_MOVED answer before the caller gets it. */
    static final int MOVED_RESENDS = 3;
    /**
     * Requests in flight when the connection was lost while the session lives, in the order they were written:
     * written again with their xids, first, once the session is re-attached (docs/exactly-once.md).
     */
    private final ArrayDeque<OutstandingRequest> toResend = new ArrayDeque<>();
    /** Writes in {@link #inFlight} (at most {@link #WRITE_WINDOW}). */
    private int writesInFlight;
    private byte[] password = NO_PASSWORD;
    private Channel channel;
    private InetSocketAddress server;
    private boolean established;
    private boolean suspended;
    private boolean needsFlush;
    /** The server of this connection takes {@link Message.AckedRequest}s (it answered {@link Message#ACKS_VERSION}). */
    private boolean acks;
    private long lastZxid;
    private int lastXid;
    private long lastSendNanos;
    private long lastRecvNanos;
    private long attemptDeadlineNanos;
    private int failedAttempts;
    /** A TLS problem of the connection being attempted (set by its handlers before it closes), or null. */
    private String attemptTlsFailure;
    /** Attempts in a row that failed for TLS reasons (server not speaking TLS, certificate refused). */
    private int tlsFailuresInRow;
    private ScheduledFuture<?> ticker;

    ConnectionManager(ZkClientConfig config, EventLoop loop, EventThread events, WatchRegistry watches,
                      Consumer<ConnectionState> stateSink) {
        this.config = config;
        this.hosts = new HostList(config.connectString(), new Random());
        this.loop = loop;
        this.events = events;
        this.watches = watches;
        this.stateSink = stateSink;
        this.maxDataSize = config.maxDataSize();
        this.auths.addAll(config.authInfo());
        this.negotiatedTimeoutMs = (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis());
        long attemptMs = Math.max(1000, config.sessionTimeout().toMillis() / hosts.size());
        attemptMs = Math.min(attemptMs, Math.max(1000, config.connectTimeout().toMillis()));
        this.attemptTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(attemptMs);
        int inboundLimit = MessageCodec.maxFrameSize(
                Math.max(config.maxDataSize(), ZkClientBuilder.DEFAULT_MAX_DATA_SIZE));
        Handler handler = new Handler();
        this.ssl = config.tls() == null ? null : SslContexts.forClient(config.tls());
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) attemptMs)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (ssl != null) {
                            ch.pipeline().addLast("ssl", SslContexts.clientHandler(ssl, ch.alloc(),
                                    server.getHostString(), server.getPort(), config.tls().hostnameVerification()));
                        } else {
                            ch.pipeline().addLast("tlsAnswer", new TlsAnswerCheck());
                        }
                        Frames.install(ch.pipeline(), inboundLimit);
                        ch.pipeline().addLast("client", handler);
                    }
                });
    }

    // ---- any thread ---------------------------------------------------------------------------------------------

    void start() {
        loop.execute(() -> {
            ticker = loop.scheduleAtFixedRate(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
            connectNext();
        });
    }

    /** Waits for the first session; fails with ConnectionLoss after the timeout. */
    void awaitFirstSession(long timeoutMs) {
        try {
            firstSession.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            String why = lastFailure;
            throw new ZkException.ConnectionLoss(null, "no session with any of " + hosts + " within " + timeoutMs
                    + " ms" + (why == null ? "" : "; last attempt: " + why));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(null, "interrupted while connecting");
        } catch (ExecutionException e) {
            throw dev.zkr.client.ClientSupport.unwrap(e.getCause());
        }
    }

    long sessionId() {
        return sessionId;
    }

    int negotiatedTimeoutMs() {
        return negotiatedTimeoutMs;
    }

    int maxDataSize() {
        return maxDataSize;
    }

    ConnectionState state() {
        ConnectionState s = state;
        return s == null ? ConnectionState.SUSPENDED : s;
    }

    boolean isClosing() {
        return closing;
    }

    /** Queues a request; it is written as soon as a session is attached (the caller's future gets the outcome). */
    void submit(OutstandingRequest p) {
        ZkException authFailure = p.kind.internal() ? null : failedAuth.getAndSet(null);
        if (authFailure != null) {
            p.future.completeExceptionally(authFailure);
            return;
        }
        if (closing) {
            p.future.completeExceptionally(closed(p.path));
            return;
        }
        if (expiredForGood) {
            p.future.completeExceptionally(expired(p.path));
            return;
        }
        outbox.offer(p);
        if (closing && outbox.remove(p)) {
            p.future.completeExceptionally(closed(p.path));
            return;
        }
        scheduleDrain();
    }

    /**
     * Ends the session: writes what is queued, then CloseSessionRequest, waits (bounded) for its reply, closes the
     * connection, fails everything left with Closed and reports LOST (once). Not on the event loop.
     */
    void close(long waitMs) {
        closing = true;
        CompletableFuture<Object> sessionClosed = new CompletableFuture<>();
        loop.execute(() -> {
            if (!established) {
                sessionClosed.complete(null);
                return;
            }
            OutstandingRequest queued;
            while ((queued = outbox.poll()) != null) { // everything asked before close goes first
                if (!queued.done) {
                    write(queued);
                }
            }
            OutstandingRequest close = new OutstandingRequest(OutstandingRequest.Kind.CLOSE_SESSION, null, NO_DEADLINE);
            close.future.whenComplete((v, e) -> sessionClosed.complete(null));
            write(close);
            flush();
        });
        try {
            sessionClosed.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.debug("session 0x{} close not confirmed: {}", Long.toHexString(sessionId), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        CompletableFuture<Void> finished = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                finishClose();
            } finally {
                finished.complete(null);
            }
        });
        try {
            finished.get(5, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.warn("client close did not finish: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- event loop ---------------------------------------------------------------------------------------------

    private void finishClose() {
        if (ticker != null) {
            ticker.cancel(false);
        }
        Channel ch = channel;
        channel = null;
        established = false;
        if (ch != null) {
            ch.close();
        }
        failInFlight(true);
        OutstandingRequest p;
        while ((p = outbox.poll()) != null) {
            complete(p, null, closed(p.path));
        }
        watches.clear();
        firstSession.completeExceptionally(closed(null));
        if (state != ConnectionState.LOST) {
            setState(ConnectionState.LOST);
        }
    }

    private void connectNext() {
        if (closing || channel != null) {
            return;
        }
        InetSocketAddress address = hosts.next();
        server = address;
        attemptDeadlineNanos = System.nanoTime() + attemptTimeoutNanos;
        attemptTlsFailure = null;
        ChannelFuture connect = bootstrap.connect(address);
        channel = connect.channel();
        connect.addListener((ChannelFutureListener) f -> {
            if (f.channel() != channel) {
                return;
            }
            if (f.isSuccess()) {
                byte[] pw = sessionId == 0 ? NO_PASSWORD : password;
                f.channel().writeAndFlush(new Message.ConnectRequest(Message.PROTOCOL_VERSION, sessionId, pw,
                        (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis()), lastZxid),
                        f.channel().voidPromise());
            } else {
                LOG.debug("cannot connect to {}: {}", address, f.cause() == null ? "?" : f.cause().toString());
                channel = null;
                attemptFailed();
            }
        });
    }

    /** After a failed attempt: the next server at once, or a short pause once every server failed in a row. */
    private void attemptFailed() {
        if (closing) {
            return;
        }
        failedAttempts++;
        if (failedAttempts % hosts.size() != 0) {
            connectNext();
            return;
        }
        int rounds = failedAttempts / hosts.size();
        long delay = Math.min(500, 25L << Math.min(5, rounds));
        delay += (long) (Math.random() * delay / 2);
        if (rounds == 1 || rounds % 20 == 0) {
            LOG.info("cannot reach any of {}; retrying in {} ms", hosts, delay);
        }
        loop.schedule(this::connectNext, delay, TimeUnit.MILLISECONDS);
    }

    private void onChannelClosed(Channel ch) {
        if (ch != channel) {
            return;
        }
        channel = null;
        boolean wasEstablished = established;
        established = false;
        if (!closing && wasEstablished && sessionId != 0) {
            keepForResend();
        } else {
            failInFlight(closing);
        }
        if (closing) {
            return;
        }
        if (!wasEstablished && attemptTlsFailure != null) {
            lastFailure = attemptTlsFailure;
            tlsFailuresInRow++;
            if (tlsFailuresInRow >= hosts.size() && !firstSession.isDone()) {
                // every server refused for a TLS reason: a configuration problem, not an outage; say so at once
                firstSession.completeExceptionally(new ZkException.ConnectionLoss(null, attemptTlsFailure));
            }
        } else {
            tlsFailuresInRow = 0;
        }
        if (wasEstablished) {
            LOG.info("connection to {} lost (session 0x{}); reconnecting", server, Long.toHexString(sessionId));
            if (!suspended) {
                suspended = true;
                setState(ConnectionState.SUSPENDED);
            }
            failedAttempts = 0;
            connectNext();
        } else {
            attemptFailed();
        }
    }

    private void onMessage(Channel ch, Object msg) {
        if (ch != channel || !ch.isOpen()) { // closed by this side: what it still decoded is for the old connection
            return;
        }
        lastRecvNanos = System.nanoTime();
        if (!readingPaused && events.backlog() >= EventThread.BACKLOG_HIGH) {
            pauseReading(ch);
        }
        if (msg instanceof Message.Reply reply) {
            onReply(reply);
        } else if (msg instanceof Message.WatchEvent event) {
            onWatchEvent(event.type(), event.path(), event.zxid(), null);
        } else if (msg instanceof Message.WatchEventWithData event) {
            onWatchEvent(event.type(), event.path(), event.zxid(),
                    new dev.zkr.client.NodeData(event.data(), event.stat()));
        } else if (msg instanceof Message.ConnectResponse response) {
            onConnectResponse(response);
        } else if (msg instanceof Message.ConnectRefused refused) {
            onRefused(refused);
        } else if (msg instanceof Message.ProtocolError error) {
            LOG.warn("server {} reports a protocol error ({}): {}", server, error.code(), error.message());
            ch.close();
        } else {
            LOG.warn("unexpected {} from server {}; closing the connection", msg.getClass().getSimpleName(), server);
            ch.close();
        }
    }

    /** Authentication to send on every connect from now on (before any request queued after it). */
    void rememberAuth(ZkClientConfig.AuthInfo info) {
        auths.add(info);
    }

    /** Writes the remembered authentication first on a new connection, in the order it was added. */
    private void resendAuth() {
        for (ZkClientConfig.AuthInfo info : auths) {
            OutstandingRequest a = new OutstandingRequest(OutstandingRequest.Kind.AUTH_RESEND, null, NO_DEADLINE);
            a.authInfo = info;
            write(a);
        }
    }

    /** The server refused this authentication: it is not sent again, and the next request fails with AuthFailed. */
    private void authRefused(ZkClientConfig.AuthInfo info, Message.Reply r, boolean resent) {
        auths.remove(info);
        LOG.warn("server {} refused authentication for scheme {}: {}", server, info.scheme(), r.message());
        if (resent) {
            failedAuth.set(new ZkException.AuthFailed(null, "the server refused the " + info.scheme()
                    + " authentication re-sent on reconnect"));
        }
    }

    private void onConnectResponse(Message.ConnectResponse r) {
        if (established) {
            LOG.warn("second handshake response from {}; closing the connection", server);
            channel.close();
            return;
        }
        negotiatedTimeoutMs = r.negotiatedTimeoutMs() > 0 ? r.negotiatedTimeoutMs() : negotiatedTimeoutMs;
        if (r.maxDataSize() > 0) {
            maxDataSize = Math.min(config.maxDataSize(), r.maxDataSize());
            widenInboundFrames(r.maxDataSize());
        }
        boolean reattached = sessionId != 0 && r.sessionId() == sessionId;
        if (sessionId != 0 && !reattached) {
            loseSession("server " + server + " opened a new session instead of 0x" + Long.toHexString(sessionId));
        }
        sessionId = r.sessionId();
        password = r.password() == null ? NO_PASSWORD : r.password();
        acks = r.protocolVersion() >= Message.ACKS_VERSION;
        established = true;
        suspended = false;
        failedAttempts = 0;
        lastSendNanos = lastRecvNanos = System.nanoTime();
        resendAuth();
        if (reattached) {
            LOG.info("session 0x{} re-attached at {}", Long.toHexString(sessionId), server);
            setState(ConnectionState.RECONNECTED);
            resendWatches();
            resendInFlight();
        } else {
            LOG.debug("session 0x{} opened at {} (timeout {} ms)", Long.toHexString(sessionId), server,
                    negotiatedTimeoutMs);
            setState(ConnectionState.CONNECTED);
        }
        firstSession.complete(null);
        drain();
    }

    private void widenInboundFrames(int serverMaxDataSize) {
        int wanted = MessageCodec.maxFrameSize(serverMaxDataSize);
        if (serverMaxDataSize > Math.max(config.maxDataSize(), ZkClientBuilder.DEFAULT_MAX_DATA_SIZE)) {
            channel.pipeline().replace("frameDecoder", "frameDecoder",
                    new LengthFieldBasedFrameDecoder(wanted, 0, 4, 0, 4));
        }
    }

    private void onRefused(Message.ConnectRefused r) {
        if (r.code() != ZkException.Code.SESSION_EXPIRED.intValue()) {
            LOG.info("server {} refused the connection: {} {}", server, ZkException.Code.of(r.code()), r.message());
            channel.close();
            return;
        }
        Channel ch = channel;
        channel = null;
        ch.close();
        loseSession("session 0x" + Long.toHexString(sessionId) + " expired");
        failedAttempts = 0;
        if (config.renewSessionOnExpiry()) {
            connectNext();
        } else {
            expiredForGood = true;
            drain();
        }
    }

    /** The session is gone: its watches go, requests waiting for it fail, LOST is reported. */
    private void loseSession(String reason) {
        LOG.info("{}; reporting LOST", reason);
        loseResends(reason);
        watches.clear();
        sessionId = 0;
        password = NO_PASSWORD;
        suspended = false;
        OutstandingRequest p;
        while ((p = outbox.poll()) != null) {
            complete(p, null, expired(p.path));
        }
        setState(ConnectionState.LOST);
    }

    /** Keeps every request of the lost connection to be written again, in order, once the session is back. */
    private void keepForResend() {
        OutstandingRequest p;
        while ((p = inFlight.poll()) != null) {
            if (p.kind.internal()) {
                p.done = true;
                p.future.complete(null);
            } else {
                toResend.add(p); // timed out ones too: the server decides them in their turn, nobody waits
            }
        }
        writesInFlight = 0;
    }

    /**
     * Writes the kept requests again with their original xids, before anything new: a write the server applied is
     * answered with its saved reply, one it never got is applied now; reads are served again.
     */
    private void resendInFlight() {
        OutstandingRequest p;
        while ((p = toResend.poll()) != null) {
            writeAs(p, p.xid);
        }
    }

    /** The session is lost: the kept requests fail; a write's outcome is unknown (it may have been applied). */
    private void loseResends(String reason) {
        OutstandingRequest p;
        while ((p = toResend.poll()) != null) {
            complete(p, null, new ZkException.SessionExpired(p.path, p.kind.write()
                    ? "the session was lost (" + reason + ") while this write was in flight: outcome unknown, it may "
                    + "or may not have been applied" : "the session was lost (" + reason + ")", p.kind.write()));
        }
    }

    private void resendWatches() {
        WatchRegistry.Snapshot snapshot = watches.snapshot();
        if (snapshot.isEmpty()) {
            return;
        }
        OutstandingRequest set = new OutstandingRequest(OutstandingRequest.Kind.SET_WATCHES, null, NO_DEADLINE);
        set.watches = snapshot;
        set.relativeZxid = lastZxid;
        write(set);
    }

    private void onReply(Message.Reply r) {
        OutstandingRequest p = inFlight.poll();
        if (!established || p == null || p.xid != r.xid()) {
            LOG.warn("reply xid {} from {} does not match the oldest request ({}); closing the connection",
                    r.xid(), server, p);
            if (p != null) {
                inFlight.addFirst(p);
            }
            channel.close();
            return;
        }
        if (r.zxid() > lastZxid) {
            lastZxid = r.zxid();
        }
        if (p.kind.write() && writesInFlight-- == WRITE_WINDOW && !outbox.isEmpty()) {
            scheduleDrain(); // writes waited for the window
        }
        if (p.kind.internal()) {
            onInternalReply(p, r);
            return;
        }
        if (movedAway(p, r)) {
            return;
        }
        if (p.done) {
            return; // timed out already
        }
        Object result;
        try {
            result = ReplyDecoder.result(p, r);
        } catch (ZkException e) {
            if (p.kind == OutstandingRequest.Kind.AUTH && e.code() == ZkException.Code.AUTH_FAILED) {
                authRefused(p.authInfo, r, false);
            }
            complete(p, null, e);
            if (e.code() == ZkException.Code.SESSION_EXPIRED) {
                channel.close(); // the re-attach attempt learns and reports the expiry
            }
            return;
        }
        registerWatch(p, result);
        complete(p, result, null);
    }

    /**
     * A write answered SESSION_MOVED was not applied (a server that dedups answers a write it applied with its saved
     * reply, before this check): this connection is a straggler's. It closes, and the write goes again with its xid,
     * ahead of the writes after it, once the session is re-attached (which makes that server the session's owner) —
     * a few times, then the caller gets SessionMoved.
     */
    private boolean movedAway(OutstandingRequest p, Message.Reply r) {
        if (!acks || !p.kind.write() || r.code() != ZkException.Code.SESSION_MOVED.intValue()
                || p.movedResends >= MOVED_RESENDS) {
            return false;
        }
        p.movedResends++;
        LOG.info("server {} says session 0x{} moved away; re-attaching and sending write xid {} again", server,
                Long.toHexString(sessionId), p.xid);
        inFlight.addFirst(p);
        channel.close();
        return true;
    }

    private void onInternalReply(OutstandingRequest p, Message.Reply r) {
        if (r.code() == ZkException.Code.SESSION_EXPIRED.intValue()
                && p.kind == OutstandingRequest.Kind.CLOSE_SESSION) {
            // closing a session that is already gone: the outcome the caller wanted, nothing to warn about
            LOG.debug("session 0x{} had already expired when closed", Long.toHexString(sessionId));
        } else if (p.kind == OutstandingRequest.Kind.AUTH_RESEND
                && r.code() == ZkException.Code.AUTH_FAILED.intValue()) {
            authRefused(p.authInfo, r, true);
        } else if (r.code() != 0) {
            LOG.warn("{} failed on {}: {} {}", p.kind, server, ZkException.Code.of(r.code()), r.message());
        }
        p.done = true;
        p.future.complete(null);
    }

    private void registerWatch(OutstandingRequest p, Object result) {
        Watcher w = p.watcher;
        if (w == null) {
            return;
        }
        switch (p.kind) {
            case EXISTS -> watches.add(result != null ? WatchRegistry.Kind.DATA : WatchRegistry.Kind.EXIST, p.path, w);
            case GET_DATA -> watches.add(WatchRegistry.Kind.DATA, p.path, w);
            case GET_CHILDREN -> watches.add(WatchRegistry.Kind.CHILD, p.path, w);
            case ADD_WATCH -> {
                WatchRegistry.Kind kind = p.addWatchMode == dev.zkr.client.AddWatchMode.PERSISTENT_RECURSIVE
                        ? WatchRegistry.Kind.RECURSIVE : WatchRegistry.Kind.PERSISTENT;
                if (p.addWatchWithData) {
                    watches.addWithData(kind, p.path, w);
                } else {
                    watches.add(kind, p.path, w);
                }
            }
            default -> {
            }
        }
    }

    /**
     * The event thread is far behind: stop reading until it has caught up, so the server (not this heap) holds what
     * it has not sent yet. Silence is not held against the server meanwhile.
     */
    private void pauseReading(Channel ch) {
        readingPaused = true;
        ch.config().setAutoRead(false);
        events.whenDrained(() -> loop.execute(() -> {
            readingPaused = false;
            lastRecvNanos = System.nanoTime();
            ch.config().setAutoRead(true);
        }));
    }

    private void onWatchEvent(WatchedEvent.Type type, String path, long zxid, dev.zkr.client.NodeData data) {
        if (zxid > lastZxid) {
            lastZxid = zxid;
        }
        Set<Watcher> targets = watches.materialize(type, path);
        if (targets.isEmpty()) {
            return;
        }
        WatchedEvent event = new WatchedEvent(type, path, zxid, data);
        events.execute(() -> deliver(targets, event));
    }

    static void deliver(Iterable<Watcher> targets, WatchedEvent event) {
        for (Watcher w : targets) {
            try {
                w.process(event);
            } catch (RuntimeException ex) {
                LOG.warn("watcher {} failed on {}: {}", w, event, ex.toString(), ex);
            }
        }
    }

    private void drain() {
        drainScheduled.set(false);
        if (!established) {
            if (expiredForGood || closing) {
                OutstandingRequest p;
                while ((p = outbox.poll()) != null) {
                    complete(p, null, closing ? closed(p.path) : expired(p.path));
                }
            }
            return;
        }
        OutstandingRequest p;
        while (channel.isWritable() && (p = outbox.peek()) != null) {
            if (!p.done && p.kind.write() && writesInFlight >= WRITE_WINDOW) {
                break; // the rest waits for a write's reply (onReply drains again)
            }
            outbox.poll();
            if (p.done) {
                continue;
            }
            if (p.kind == OutstandingRequest.Kind.REMOVE_WATCHES && watchStillNeeded(p.path, p.watcherType)) {
                complete(p, null, null);
                continue;
            }
            write(p);
        }
        flush(); // if the channel is not writable, the rest waits for channelWritabilityChanged
    }

    /**
     * Whether the session's server-side watch of this type on the path must stay although the removal that asked
     * to drop it found no local watcher left: a watcher registered since, or a read written before the removal
     * whose reply will register one (the server serves that read first, so dropping the watch after it would
     * leave that watcher registered here and never fired). Decided here, on the event loop, as the removal is
     * written: every request sent before it is in flight, every reply received before it is registered.
     */
    private boolean watchStillNeeded(String path, WatcherType type) {
        if (watches.holds(path, type)) {
            return true;
        }
        for (OutstandingRequest q : inFlight) {
            if (!q.done && q.watcher != null && path.equals(q.path) && registersInto(q) == type) {
                return true;
            }
        }
        return false;
    }

    /** The watch type a watching request registers, or null. */
    private static WatcherType registersInto(OutstandingRequest q) {
        return switch (q.kind) {
            case EXISTS, GET_DATA -> WatcherType.DATA;
            case GET_CHILDREN -> WatcherType.CHILDREN;
            case ADD_WATCH -> WatcherType.of(q.addWatchMode);
            default -> null;
        };
    }

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            loop.execute(drainTask);
        }
    }

    private void write(OutstandingRequest p) {
        lastXid = lastXid == -1 ? 1 : lastXid + 1; // past MAX_VALUE on to MIN_VALUE, never 0: the server compares
        writeAs(p, lastXid);                       // a session's xids as serial numbers (docs/exactly-once.md)
    }

    /** Writes the request with {@code xid} (a new one, or its own when it is sent again). */
    private void writeAs(OutstandingRequest p, int xid) {
        p.xid = xid;
        if (p.kind.write()) {
            writesInFlight++;
        }
        inFlight.add(p);
        Message.Request m = p.toMessage();
        if (acks && p.kind.write()) {
            // the lowest xid still waited for (this write's at most): the server drops the replies it saved before
            m = new Message.AckedRequest(inFlight.peek().xid, m);
        }
        channel.write(m, channel.voidPromise());
        needsFlush = true;
    }

    private void flush() {
        if (needsFlush) {
            needsFlush = false;
            lastSendNanos = System.nanoTime();
            channel.flush();
        }
    }

    private void tick() {
        long now = System.nanoTime();
        if (established) {
            long timeout = TimeUnit.MILLISECONDS.toNanos(negotiatedTimeoutMs);
            if (readingPaused) {
                lastRecvNanos = now; // not reading on purpose: the server's silence is ours
            }
            if (now - lastRecvNanos > timeout * 2 / 3) {
                LOG.info("no message from {} for {} ms; closing the connection", server,
                        TimeUnit.NANOSECONDS.toMillis(now - lastRecvNanos));
                channel.close();
            } else if (now - lastSendNanos > timeout / 3) {
                write(new OutstandingRequest(OutstandingRequest.Kind.PING, null, NO_DEADLINE));
                flush();
            }
        } else if (channel != null && now - attemptDeadlineNanos > 0) {
            LOG.info("no session from {} within {} ms; trying the next server", server,
                    TimeUnit.NANOSECONDS.toMillis(attemptTimeoutNanos));
            channel.close();
        }
        expireRequests(now);
    }

    private void expireRequests(long now) {
        OutstandingRequest p;
        while ((p = outbox.peek()) != null && now - p.deadlineNanos > 0) {
            outbox.poll();
            timeout(p);
        }
        for (ArrayDeque<OutstandingRequest> waiting : List.of(inFlight, toResend)) {
            for (OutstandingRequest q : waiting) {
                if (q.kind.internal() || q.done) {
                    continue;
                }
                if (now - q.deadlineNanos <= 0) {
                    break;
                }
                timeout(q);
            }
        }
    }

    private void timeout(OutstandingRequest p) {
        complete(p, null, new ZkException.OperationTimeout(p.path,
                "no response within " + config.requestTimeout().toMillis() + " ms"));
    }

    /** Fails every request written on the lost connection (ConnectionLoss, or Closed when closing). */
    private void failInFlight(boolean closed) {
        writesInFlight = 0;
        if (closed) {
            OutstandingRequest q;
            while ((q = toResend.poll()) != null) {
                complete(q, null, closed(q.path));
            }
        }
        OutstandingRequest p;
        while ((p = inFlight.poll()) != null) {
            if (p.kind.internal()) {
                p.done = true;
                p.future.complete(null);
            } else {
                complete(p, null, closed ? closed(p.path)
                        : new ZkException.ConnectionLoss(p.path, "connection to " + server + " lost"));
            }
        }
    }

    private void complete(OutstandingRequest p, Object result, ZkException error) {
        boolean recorded = error == null ? p.succeed(result) : p.fail(error);
        if (recorded) {
            if (p.blocking && events.idle()) {
                p.run(); // nothing queued must come first, and only a blocked caller waits on this future
            } else {
                events.execute(p);
            }
        }
    }

    private void setState(ConnectionState s) {
        state = s;
        stateSink.accept(s);
    }

    private static ZkException closed(String path) {
        return new ZkException.Closed(path, "the client is closed");
    }

    private static ZkException expired(String path) {
        return new ZkException.SessionExpired(path, "the session expired");
    }

    /** Notes a TLS reason for the current attempt's failure (one log line) and closes the connection. */
    private void tlsFailed(Channel ch, String why) {
        if (attemptTlsFailure == null) {
            attemptTlsFailure = why;
            LOG.warn("{}", why);
        }
        ch.close();
    }

    private String handshakeFailure(Throwable cause) {
        if (cause instanceof NotSslRecordException) {
            return "TLS handshake with " + server + " failed: the server answered in plaintext (it does not speak "
                    + "TLS on this port; connect without tls(...) or enable TLS on the server)";
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(cause.getMessage());
        String rootMessage = root == cause ? "" : " (" + root.getClass().getSimpleName() + ": " + root.getMessage()
                + ")";
        return "TLS handshake with " + server + " failed: " + message + rootMessage;
    }

    private static Throwable sslCause(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                return t;
            }
        }
        return null;
    }

    /**
     * On a plaintext connection, looks at the server's first bytes: a TLS record there (a TLS-only port answering a
     * plaintext request with an alert) fails the attempt with a message naming TLS instead of a framing error.
     */
    private final class TlsAnswerCheck extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf buf && buf.readableBytes() >= TlsRecords.HEADER
                    && TlsRecords.looksLikeTls(buf)) {
                buf.release();
                if (ctx.channel() == channel) {
                    tlsFailed(ctx.channel(), "server " + server + " answered in TLS: this port requires TLS; "
                            + "configure the client with ZkClient.builder().tls(...)");
                } else {
                    ctx.close();
                }
                return;
            }
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(msg);
        }
    }

    /** Forwards the channel's events to the manager (all channels of a client share its event loop). */
    @ChannelHandler.Sharable
    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            onMessage(ctx.channel(), msg);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable() && ctx.channel() == channel) {
                scheduleDrain();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            onChannelClosed(ctx.channel());
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            // a connection closed during its handshake (the attempt timed out, the server went away) is an
            // ordinary failed attempt, not a TLS problem
            if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()
                    && ctx.channel() == channel && ctx.channel().isActive()
                    && !(done.cause() instanceof java.nio.channels.ClosedChannelException)) {
                tlsFailed(ctx.channel(), handshakeFailure(done.cause()));
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (ssl != null && sslCause(cause) != null) {
                if (ctx.channel() == channel && attemptTlsFailure == null && !established) {
                    tlsFailed(ctx.channel(), handshakeFailure(sslCause(cause)));
                } else {
                    LOG.debug("TLS error on the connection to {}: {}", ctx.channel().remoteAddress(), cause.toString());
                }
                ctx.close();
                return;
            }
            if (cause instanceof IOException) {
                LOG.debug("connection to {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            } else {
                LOG.warn("closing connection to {}: {}", ctx.channel().remoteAddress(), cause.toString());
            }
            ctx.close();
        }
    }
}
