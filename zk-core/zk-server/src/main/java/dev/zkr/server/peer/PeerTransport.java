package dev.zkr.server.peer;

import dev.zkr.client.TlsConfig;
import dev.zkr.consensus.Envelope;
import dev.zkr.wire.Frames;
import dev.zkr.wire.tls.ReloadingSslContext;
import dev.zkr.wire.tls.SslContexts;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer port of one server (docs/ensemble.md, Peer transport): Netty with the client port's framing and
 * registration-only Kryo ({@link PeerKryo}), one I/O thread, binding only its own member entry's host and port.
 * <p>
 * Links: every server dials each other member once and sends only on that outbound connection (FIFO per link); it
 * receives on the connections the others dialled. The dialer sends a {@link Hello}, the acceptor checks it and
 * answers with its own; the link is up when the dialer has checked the answer. A refused {@code Hello} closes the
 * connection with one ERROR line; a second connection from the same peer replaces the first. A closed outbound
 * connection is redialled with exponential backoff, and at once when the peer dials in (it restarted).
 * <p>
 * Callbacks ({@link Listener}) all run on the transport's single I/O thread, in order: {@code peerUp(id)} when the
 * outbound link to {@code id} comes up, {@code peerDown(id)} when it closes (a peer killed on loopback resets the
 * socket, so at once), {@code receivedAll(from, messages)} with the messages a peer sent that one read of its link
 * brought, in order. They must not block.
 */
public final class PeerTransport implements AutoCloseable {

    /** Version carried in {@link Hello}; raise it when the id table of {@link PeerKryo} changes incompatibly. */
    public static final int PROTOCOL_VERSION = 1;

    private static final Logger log = LoggerFactory.getLogger(PeerTransport.class);

    /** What the transport reports; called on its I/O thread, never concurrently. */
    public interface Listener {
        void received(int from, Object message);

        /**
         * The messages one read of a link brought, in order ({@link #received} for each unless overridden): a server
         * handles them in one round rather than one round per message.
         */
        default void receivedAll(int from, List<Object> messages) {
            for (Object m : messages) {
                received(from, m);
            }
        }

        default void peerUp(int id) {
        }

        default void peerDown(int id) {
        }
    }

    private final PeerConfig config;
    private final Listener listener;
    private final LinkFilter filter;
    private final int self;
    private final EventLoopGroup loop;
    /** The links this server dials, by peer id (changed on the I/O thread; read by senders on any thread). */
    private final Map<Integer, Outbound> outbound = new ConcurrentHashMap<>();
    /** The members (this server included) whose Hello is accepted; changes with the membership. */
    private volatile Map<Integer, InetSocketAddress> members;
    private volatile boolean started;
    private final Map<Integer, Channel> inbound = new HashMap<>(); // I/O thread only
    private final Set<Channel> accepted = ConcurrentHashMap.newKeySet();
    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private Channel server;
    /** TLS of the peer port (both directions, client certificates required), null for plaintext. */
    private final ReloadingSslContext tlsServer;
    private final ReloadingSslContext tlsClient;
    private final long tlsReloadMs;

    public PeerTransport(PeerConfig config, Listener listener, LinkFilter filter) {
        this(config, listener, filter, null, 0);
    }

    /**
     * A transport whose links run over TLS when {@code tls} is not null: each member presents its certificate both
     * when it dials and when it accepts (mutual TLS), checks the other's against its trust material, and checks the
     * dialled member's certificate names its host unless {@link TlsConfig#hostnameVerification()} is off. The files
     * are checked for renewal every {@code reloadMs} and new links use renewed material.
     */
    public PeerTransport(PeerConfig config, Listener listener, LinkFilter filter, TlsConfig tls, long reloadMs) {
        this.config = config;
        this.tlsServer = tls == null ? null
                : ReloadingSslContext.server(tls.toBuilder().clientAuth(TlsConfig.ClientAuth.NEED).build());
        this.tlsClient = tls == null ? null : ReloadingSslContext.client(tls);
        this.tlsReloadMs = reloadMs;
        this.listener = listener;
        this.filter = filter;
        this.self = config.serverId();
        this.loop = new NioEventLoopGroup(1, new DefaultThreadFactory("zkr-peer-" + self, true));
        this.members = config.members();
        config.members().forEach((id, address) -> {
            if (id != self) {
                outbound.put(id, new Outbound(id, address));
            }
        });
    }

    /** Binds the peer port and starts dialling the other members. */
    public PeerTransport start() throws InterruptedException {
        InetSocketAddress address = config.members().get(self);
        server = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (closed) {
                            ch.close();
                            return;
                        }
                        accepted.add(ch);
                        ch.closeFuture().addListener(f -> accepted.remove(ch));
                        if (tlsServer != null) {
                            addTls(ch, tlsServer.current().newHandler(ch.alloc()), "from " + ch.remoteAddress());
                        }
                        Frames.installFraming(ch.pipeline(), config.maxFrameSize());
                        ch.pipeline().addLast("decoder", PeerKryo.CODEC.decoder());
                        ch.pipeline().addLast("peer", new InboundHandler(ch));
                    }
                })
                .bind(address).sync().channel();
        log.info("server {} serves peers on {}{}", self, address, tlsServer == null ? "" : " (TLS)");
        if (tlsServer != null && tlsReloadMs > 0) {
            loop.scheduleWithFixedDelay(this::checkTlsFiles, tlsReloadMs, tlsReloadMs, TimeUnit.MILLISECONDS);
        }
        loop.execute(() -> {
            started = true;
            outbound.values().forEach(Outbound::dial);
        });
        return this;
    }

    /**
     * The membership changed (docs/membership.md): from now on the members are {@code next} (peer addresses by id;
     * this server's own entry, if any, is ignored: its port stays bound). A new member is dialled and its Hello
     * accepted; a member no longer listed is no longer dialled, its links are closed and its Hello is refused.
     * Called by the round; the links change on the I/O thread, in order.
     */
    public void setMembers(Map<Integer, InetSocketAddress> next) {
        Map<Integer, InetSocketAddress> all = new TreeMap<>(next);
        all.put(self, config.members().get(self));
        members = Map.copyOf(all);
        try {
            loop.execute(() -> {
                for (Map.Entry<Integer, InetSocketAddress> e : next.entrySet()) {
                    int id = e.getKey();
                    Outbound link = outbound.get(id);
                    if (id == self || link != null && link.address.equals(e.getValue())) {
                        continue;
                    }
                    if (link != null) {
                        link.stop();
                    }
                    Outbound added = new Outbound(id, e.getValue());
                    outbound.put(id, added);
                    log.info("server {}: server {} at {} is a member now", self, id, e.getValue());
                    if (started) {
                        added.dial();
                    }
                }
                for (Integer id : List.copyOf(outbound.keySet())) {
                    if (!next.containsKey(id)) {
                        outbound.remove(id).stop();
                        Channel in = inbound.remove(id);
                        if (in != null) {
                            in.close();
                        }
                        log.info("server {}: server {} is no longer a member", self, id);
                    }
                }
            });
        } catch (RejectedExecutionException closing) {
            // the transport is closing: no links to change
        }
    }

    /** The members whose Hello this server accepts now, this server included (tests, status). */
    public Map<Integer, InetSocketAddress> members() {
        return members;
    }

    /**
     * Sends {@code message} (a class registered in {@link PeerKryo}) to peer {@code to} without blocking: dropped
     * if the link is down or cut by the {@link LinkFilter}; closes the link if more than
     * {@link PeerConfig#maxOutboundBytes()} would be waiting to be sent (the receiver re-syncs).
     *
     * @throws IllegalArgumentException if {@code to} is not another member or the message exceeds the frame limit
     */
    public void send(int to, Object message) {
        Live live = liveLinkTo(to);
        if (live == null) {
            return;
        }
        ByteBuf frame = PeerKryo.CODEC.encodeFramed(live.channel.alloc(), message);
        int size = frame.readableBytes();
        if (size - 4 > config.maxFrameSize()) {
            frame.release();
            throw new IllegalArgumentException(message.getClass().getSimpleName() + " of " + (size - 4)
                    + " bytes exceeds the peer frame limit of " + config.maxFrameSize());
        }
        if (reserve(live, to, size)) {
            handOver(live, List.of(frame), size);
        } else {
            frame.release();
        }
    }

    /**
     * Sends {@code messages} to peer {@code to} in order, as {@link #send} does one by one, but in one task and one
     * flush on the link's event loop (a round's messages for one peer leave in one write). A message above the
     * frame limit is left out with a WARN line.
     */
    public void sendAll(int to, List<?> messages) {
        if (messages.size() == 1) {
            send(to, messages.get(0));
            return;
        }
        Live live = liveLinkTo(to);
        if (live == null) {
            return;
        }
        List<ByteBuf> frames = new ArrayList<>(messages.size());
        long total = 0;
        for (Object message : messages) {
            ByteBuf frame = PeerKryo.CODEC.encodeFramed(live.channel.alloc(), message);
            if (frame.readableBytes() - 4 > config.maxFrameSize()) {
                log.warn("not sending {} of {} bytes to server {}: above the peer frame limit of {}",
                        message.getClass().getSimpleName(), frame.readableBytes() - 4, to, config.maxFrameSize());
                frame.release();
                continue;
            }
            total += frame.readableBytes();
            frames.add(frame);
        }
        if (!reserve(live, to, total)) {
            frames.forEach(ByteBuf::release);
            return;
        }
        handOver(live, frames, total);
    }

    /**
     * Writes {@code frames} and flushes in one task on the link's event loop, also when called on that loop: every
     * send goes through the loop's task queue, so the link stays FIFO across calls from any thread. (A write made
     * at once from the I/O thread, which may run a round, overtook the frames of earlier rounds still queued for
     * it: a follower saw a gap in the proposals and re-synced, about once every 2,000 txns under load, issue 27.)
     */
    private void handOver(Live live, List<ByteBuf> frames, long total) {
        try {
            live.channel.eventLoop().execute(() -> {
                for (ByteBuf frame : frames) {
                    int n = frame.readableBytes();
                    live.channel.write(frame).addListener(f -> live.pending.addAndGet(-n));
                }
                live.channel.flush();
            });
        } catch (RejectedExecutionException closing) {
            // the transport is closing (a kill or a stop): the link is gone, as the messages are
            live.pending.addAndGet(-total);
            frames.forEach(ByteBuf::release);
        }
    }

    /**
     * The live outbound link to member {@code to}, or null if it is down, the partition filter drops it, or
     * {@code to} is not (or not yet, or no longer) another member: the consensus core may count a member before the
     * transport has its link, or after it dropped it.
     */
    private Live liveLinkTo(int to) {
        Outbound link = outbound.get(to);
        if (link == null) {
            return null;
        }
        Live live = link.live;
        return live == null || !filter.allows(self, to) ? null : live;
    }

    /**
     * Counts {@code size} more bytes as waiting on the link; if that passes {@code maxOutboundBytes} the link is
     * closed (its peer does not read; the leader re-syncs it when it is back) and false is returned.
     */
    private boolean reserve(Live live, int to, long size) {
        if (live.pending.addAndGet(size) <= config.maxOutboundBytes()) {
            return true;
        }
        live.pending.addAndGet(-size);
        if (live.overflowed.compareAndSet(false, true)) {
            log.warn("closing the link to server {}: more than {} bytes wait to be sent (it does not read)", to,
                    config.maxOutboundBytes());
            live.channel.close();
        }
        return false;
    }

    /** = {@code send(e.to(), e.message())}. */
    public void send(Envelope e) {
        send(e.to(), e.message());
    }

    /** Whether the outbound link to {@code id} is up (handshake done, not yet closed). */
    public boolean isUp(int id) {
        Outbound link = outbound.get(id);
        return link != null && link.live != null;
    }

    /** Closes the port and every connection; no callbacks after this returns. */
    @Override
    public void close() {
        closed = true;
        if (server != null) {
            server.close().awaitUninterruptibly();
        }
        loop.submit(() -> {
            outbound.values().forEach(Outbound::stop);
            accepted.forEach(Channel::close);
        }).awaitUninterruptibly();
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Puts TLS first in a link's pipeline; a failed handshake closes the link with one ERROR line per host. */
    private void addTls(Channel ch, SslHandler ssl, String remote) {
        ssl.setHandshakeTimeoutMillis(config.handshakeTimeoutMs());
        ssl.handshakeFuture().addListener(f -> {
            // a link closed during its handshake (replaced, or the transport closing) is no TLS problem
            if (!f.isSuccess() && !closed && ch.isActive()) {
                Throwable c = f.cause();
                refuse(ch, remote, "TLS handshake failed: " + c.getClass().getSimpleName() + ": "
                        + shorten(firstLine(c.getMessage())));
            }
        });
        ch.pipeline().addFirst("ssl", ssl);
    }

    private void checkTlsFiles() {
        for (ReloadingSslContext c : new ReloadingSslContext[] {tlsServer, tlsClient}) {
            switch (c.check()) {
                case RELOADED -> log.info("server {}: reloaded the peer port's TLS material {}", self,
                        c.config().files());
                case FAILED -> log.warn("server {}: the changed peer TLS material {} does not load, keeping the "
                        + "previous one: {}", self, c.config().files(), c.lastError());
                case UNCHANGED -> {
                }
            }
        }
    }

    /**
     * One ERROR line per distinct (remote host, reason), DEBUG for repeats: a misconfigured peer redials forever,
     * from a new ephemeral port each time.
     */
    private void refuse(Channel ch, String remote, String why) {
        String host = ch.remoteAddress() instanceof InetSocketAddress a ? a.getHostString() : remote;
        String key = host + ": " + why;
        if (reported.size() > 1000) {
            reported.clear();
        }
        if (reported.add(key)) {
            log.error("server {} refuses peer connection {}: {}", self, remote, why);
        } else {
            log.debug("server {} refuses peer connection {} again: {}", self, remote, why);
        }
        ch.close();
    }

    private void badInput(Channel ch, String remote, Throwable cause) {
        SslHandler ssl = ch.pipeline().get(SslHandler.class);
        if (ssl != null && !ssl.handshakeFuture().isSuccess()) {
            log.debug("peer connection {} closed during its TLS handshake: {}", remote, cause.toString());
        } else if (cause instanceof IOException) {
            log.debug("peer connection {} closed: {}", remote, cause.toString());
        } else {
            Throwable c = cause instanceof DecoderException && cause.getCause() != null
                    && !(cause instanceof TooLongFrameException) ? cause.getCause() : cause;
            log.warn("server {} closes peer connection {}: bad input: {}: {}", self, remote,
                    c.getClass().getSimpleName(), shorten(firstLine(c.getMessage())));
        }
        ch.close();
    }

    /** At most 160 characters (a TLS error may carry a hex dump of what arrived). */
    private static String shorten(String s) {
        return s.length() <= 160 ? s : s.substring(0, 160) + "...";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** An outbound channel whose handshake completed, with the bytes written to it and not yet sent. */
    private static final class Live {
        final Channel channel;
        final AtomicLong pending = new AtomicLong();
        final AtomicBoolean overflowed = new AtomicBoolean();

        Live(Channel channel) {
            this.channel = channel;
        }
    }

    /** The link this server dials to one peer: connect, handshake, reconnect with backoff. */
    private final class Outbound {
        final int id;
        final InetSocketAddress address;
        volatile Live live;
        Channel current; // I/O thread only: the channel connecting, handshaking or live
        ScheduledFuture<?> retry;
        int backoffMs = config.minBackoffMs();
        /** No longer a member: never dialled again. */
        boolean stopped;

        Outbound(int id, InetSocketAddress address) {
            this.id = id;
            this.address = address;
        }

        void dial() {
            if (closed || stopped || current != null) {
                return;
            }
            retry = null;
            Channel ch = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.handshakeTimeoutMs())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            if (tlsClient != null) {
                                addTls(c, SslContexts.clientHandler(tlsClient.current(), c.alloc(),
                                        address.getHostString(), address.getPort(),
                                        tlsClient.config().hostnameVerification()),
                                        "to server " + id + " at " + address);
                            }
                            Frames.installFraming(c.pipeline(), config.maxFrameSize());
                            c.pipeline().addLast("decoder", PeerKryo.CODEC.decoder());
                            c.pipeline().addLast("peer", new OutboundHandler(Outbound.this));
                        }
                    })
                    .connect(address).channel();
            current = ch;
            ch.closeFuture().addListener(f -> closed(ch));
        }

        /** The peer dialled in: if this link is waiting to redial, redial now. */
        void redialNow() {
            if (current == null && retry != null) {
                retry.cancel(false);
                backoffMs = config.minBackoffMs();
                dial();
            }
        }

        void up(Channel ch) {
            live = new Live(ch);
            backoffMs = config.minBackoffMs();
            if (!closed) {
                listener.peerUp(id);
            }
        }

        private void closed(Channel ch) {
            if (current != ch) {
                return;
            }
            current = null;
            if (live != null && live.channel == ch) {
                live = null;
                if (!closed) {
                    listener.peerDown(id);
                }
            }
            if (!closed && !stopped) {
                retry = loop.schedule(this::dial, backoffMs, TimeUnit.MILLISECONDS);
                backoffMs = Math.min(config.maxBackoffMs(), backoffMs * 2);
            }
        }

        void stop() {
            stopped = true;
            if (retry != null) {
                retry.cancel(false);
            }
            if (current != null) {
                current.close();
            }
        }
    }

    /** Dialer side: send Hello, check the answer, then only the link's own writes; nothing else may arrive. */
    private final class OutboundHandler extends ChannelInboundHandlerAdapter {
        private final Outbound link;
        private ScheduledFuture<?> handshakeTimer;

        OutboundHandler(Outbound link) {
            this.link = link;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(PeerKryo.CODEC.encodeFramed(ctx.alloc(), config.hello()));
            handshakeTimer = ctx.executor().schedule(() -> {
                log.warn("server {}: no Hello from server {} at {} within {} ms", self, link.id, link.address,
                        config.handshakeTimeoutMs());
                ctx.close();
            }, config.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            String remote = "to server " + link.id + " at " + link.address;
            if (link.live != null || !(msg instanceof Hello hello)) {
                badInput(ctx.channel(), remote, new IllegalStateException("unexpected "
                        + msg.getClass().getSimpleName() + " on an outbound link"));
                return;
            }
            handshakeTimer.cancel(false);
            String why = config.refusal(hello, link.id, members.keySet());
            if (why != null) {
                refuse(ctx.channel(), remote, why);
                return;
            }
            link.up(ctx.channel());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (handshakeTimer != null) {
                handshakeTimer.cancel(false);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            badInput(ctx.channel(), "to server " + link.id + " at " + link.address, cause);
        }
    }

    /** Acceptor side: a Hello first (checked, answered), then messages for the listener. */
    private final class InboundHandler extends ChannelInboundHandlerAdapter {
        private final Channel channel;
        private int from = -1;
        private ScheduledFuture<?> handshakeTimer;
        /** Messages of the read in progress, handed to the listener when it completes (I/O thread). */
        private List<Object> read = new ArrayList<>();

        InboundHandler(Channel channel) {
            this.channel = channel;
        }

        private String remote() {
            return "from " + channel.remoteAddress() + (from < 0 ? "" : " (server " + from + ")");
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            handshakeTimer = ctx.executor().schedule(() -> {
                log.warn("server {} closes peer connection {}: no Hello within {} ms", self, remote(),
                        config.handshakeTimeoutMs());
                ctx.close();
            }, config.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (from >= 0) {
                if (msg instanceof Hello) {
                    badInput(channel, remote(), new IllegalStateException("a second Hello"));
                } else if (!closed && filter.allows(from, self)) {
                    read.add(msg);
                }
                return;
            }
            if (!(msg instanceof Hello hello)) {
                badInput(channel, remote(), new IllegalStateException(msg.getClass().getSimpleName()
                        + " before Hello"));
                return;
            }
            handshakeTimer.cancel(false);
            String why = config.refusal(hello, -1, members.keySet());
            if (why != null) {
                refuse(channel, remote(), why);
                return;
            }
            from = hello.serverId();
            Channel previous = inbound.put(from, channel);
            if (previous != null) {
                log.info("server {}: a new connection from server {} replaces the previous one", self, from);
                previous.close();
            }
            ctx.writeAndFlush(PeerKryo.CODEC.encodeFramed(ctx.alloc(), config.hello()));
            Outbound back = outbound.get(from);
            if (back != null) {
                back.redialNow();
            }
        }

        /** The read is over: its messages go to the listener in one call. */
        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            deliver();
        }

        private void deliver() {
            if (read.isEmpty()) {
                return;
            }
            List<Object> batch = read;
            read = new ArrayList<>(Math.max(4, batch.size()));
            if (!closed) {
                listener.receivedAll(from, batch);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            deliver(); // what arrived before the close, as it would have without the close
            if (handshakeTimer != null) {
                handshakeTimer.cancel(false);
            }
            if (from >= 0) {
                inbound.remove(from, channel);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            badInput(channel, remote(), cause);
        }
    }
}
