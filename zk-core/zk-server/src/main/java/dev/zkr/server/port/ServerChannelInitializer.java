package dev.zkr.server.port;

import dev.zkr.server.ProblemLog;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.round.Connection;
import dev.zkr.server.round.Core;
import dev.zkr.server.zookeeper.FourLetterReplies;
import dev.zkr.server.zookeeper.ZooKeeperFrameDecoder;
import dev.zkr.server.zookeeper.ZooKeeperTranslator;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.MessageCodec;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Pipeline order of a client connection: connection limits (in total and per client IP), outbound water marks,
 * inbound metering, the protocol switch (which, on the first bytes, installs zkr's framing + codec, ZooKeeper's
 * framing + codec, or answers a four-letter word), then the connection handler. Also owns what the connections
 * share: the outbound and inbound budgets and the rate-limited problem log.
 */
@ChannelHandler.Sharable
final class ServerChannelInitializer extends ChannelInitializer<SocketChannel> {

    static final String REFUSED_TOTAL = "connections refused at maxConnections";
    static final String REFUSED_PER_HOST = "connections refused at maxConnectionsPerHost";

    private final ServerConfig config;
    private final Core core;
    private final ChannelGroup channels = new DefaultChannelGroup("zkr-clients", GlobalEventExecutor.INSTANCE);
    private final HostConnections perHost;
    private final OutboundBudget outbound;
    private final InboundBudget inbound;
    private final ProblemLog problems = ProblemLog.server(LoggerFactory.getLogger("dev.zkr.server.connections"));
    private final WriteBufferWaterMark waterMark;
    private final AcceptGate acceptGate = new AcceptGate();
    /** The inbound frame limit of both protocols, and the outbound one of zkr's. */
    private final int maxFrame;
    /** Frames replies, refusing one larger than a client accepts (shared by every connection). */
    private final ReplyFrameEncoder replyEncoder;

    /** TLS of the client port, null when it is plaintext only. */
    private final ClientPortTls tls;

    /** The server's metrics, or null when it keeps none (no admin endpoint). */
    private final RequestMetrics metrics;
    /** The four-letter words' answers. */
    private final FourLetterAnswers words;
    /** Every request's latency (the four-letter words' min/avg/max), kept with or without metrics. */
    private final LatencyStats latency = new LatencyStats();
    /** Closes silent client connections (one sweep per event loop). */
    private final IdleSweeper idle = new IdleSweeper();
    /** Requests read and replies written on connections closed since the start (the words' totals). */
    private final java.util.concurrent.atomic.LongAdder closedReceived = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder closedSent = new java.util.concurrent.atomic.LongAdder();

    /** Every request's latency since the start (the four-letter words'). */
    LatencyStats latency() {
        return latency;
    }

    ServerChannelInitializer(ServerConfig config, Core core, RequestMetrics metrics, DataTree tree,
                             WatchTable watches) {
        this.metrics = metrics;
        this.words = new FourLetterAnswers(config, core, tree, watches, this);
        this.config = config;
        this.core = core;
        this.perHost = new HostConnections(config.maxConnectionsPerHost());
        this.maxFrame = MessageCodec.maxFrameSize(config.maxDataSize());
        this.replyEncoder = new ReplyFrameEncoder(maxFrame, problems);
        this.outbound = new OutboundBudget(config.maxOutboundBytesTotal());
        this.inbound = new InboundBudget(config.maxInboundBytesTotal());
        this.waterMark = new WriteBufferWaterMark(config.outboundHighWaterMark() / 2, config.outboundHighWaterMark());
        this.tls = config.tls() == null ? null : new ClientPortTls(config, problems);
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (channels.size() >= config.maxConnections()) {
            refuseTotal(ch);
            ch.close();
            return;
        }
        InetAddress host = ch.remoteAddress() == null ? null : ch.remoteAddress().getAddress();
        if (host != null) {
            int open = perHost.tryOpen(host);
            if (open < 0) {
                refusePerHost(ch.remoteAddress());
                ch.close();
                return;
            }
            ch.closeFuture().addListener(f -> perHost.closed(host));
        }
        channels.add(ch);
        ch.config().setWriteBufferWaterMark(waterMark);
        ConnectionHandler handler = new ConnectionHandler(config, core, outbound, inbound, problems, metrics,
                latency, idle);
        ch.closeFuture().addListener(f -> {
            FourLetterReplies.Client c = handler.describe();
            if (c != null) {
                closedReceived.add(c.received());
                closedSent.add(c.sent());
            }
        });
        ch.pipeline().addLast("inboundMeter", handler.rawMeter());
        ch.pipeline().addLast("protocolSwitch", new ProtocolSwitch(new ProtocolSwitch.Protocols() {
            @Override
            public void installNative(ChannelHandlerContext ctx) {
                // exactly the pipeline zkr's port had before ZooKeeper's protocol (wire.Frames' framing and codec)
                ChannelPipeline p = ctx.pipeline();
                p.addBefore("connection", "frameDecoder", new LengthFieldBasedFrameDecoder(maxFrame, 0, 4, 0, 4));
                p.addBefore("connection", "frameMeter", handler.frameMeter());
                p.addBefore("connection", "messageDecoder", MessageCodec.Decoder.INSTANCE);
                p.addBefore("connection", "messageEncoder", replyEncoder);
            }

            @Override
            public void installZooKeeper(ChannelHandlerContext ctx) {
                ChannelPipeline p = ctx.pipeline();
                p.addBefore("connection", "frameDecoder", new ZooKeeperFrameDecoder(maxFrame));
                p.addBefore("connection", "frameMeter", handler.frameMeter());
                handler.zooKeeperProtocol();
                p.addBefore("connection", "zooKeeperCodec", new ZooKeeperCodec(new ZooKeeperTranslator(
                        ZooKeeperTranslator.CLIENT_MAX_FRAME, bytes -> problems.warn(
                                ReplyFrameEncoder.OVERSIZED_REPLIES, "reply of {} bytes to {} refused: over the "
                                        + "frame limit of {} bytes (a ZooKeeper client's jute.maxbuffer)", bytes,
                                ctx.channel().remoteAddress(), ZooKeeperTranslator.CLIENT_MAX_FRAME),
                        config.reconfigEnabled())));
            }

            @Override
            public void answerWord(ChannelHandlerContext ctx, String word) {
                handler.answeringWord();
                words.answer(ctx, word);
            }
        }));
        ch.pipeline().addLast("connection", handler);
        if (tls != null) {
            tls.install(ch.pipeline());
        }
    }

    /** Every open connection as {@code stat} and {@code cons} list it (any thread). */
    java.util.List<FourLetterReplies.Client> describeAll() {
        java.util.List<FourLetterReplies.Client> out = new java.util.ArrayList<>();
        for (Channel ch : channels) {
            ChannelHandler h = ch.pipeline().get("connection");
            if (h instanceof ConnectionHandler c) {
                FourLetterReplies.Client d = c.describe();
                if (d != null) {
                    out.add(d);
                }
            }
        }
        return out;
    }

    long closedReceived() {
        return closedReceived.sum();
    }

    long closedSent() {
        return closedSent.sum();
    }

    /** The port is bound on {@code port} (the four-letter words report it). */
    void bound(int port) {
        words.bound(port);
    }

    /** Checks the TLS files for renewed certificates (no-op on a plaintext port). */
    void checkTlsFiles() {
        if (tls != null) {
            tls.checkFiles();
        }
    }

    /**
     * The subjects of the client certificates of the open connections that presented one (test access; a future
     * x509 ACL scheme reads {@link Connection#certificateSubject()} instead).
     */
    java.util.List<String> clientCertificateSubjects() {
        java.util.List<String> subjects = new java.util.ArrayList<>();
        for (Channel ch : channels) {
            ConnectionHandler h = ch.pipeline().get(ConnectionHandler.class);
            String s = h == null ? null : h.certificateSubject();
            if (s != null) {
                subjects.add(s);
            }
        }
        return subjects;
    }

    private void refuseTotal(Channel ch) {
        problems.warn(REFUSED_TOTAL, "refusing connection from {}: {} connections open (maxConnections)",
                ch.remoteAddress(), channels.size());
    }

    private void refusePerHost(InetSocketAddress from) {
        problems.warn(REFUSED_PER_HOST, "refusing connection from {}: {} connections open from {} "
                + "(maxConnectionsPerHost)", from, config.maxConnectionsPerHost(), from.getAddress().getHostAddress());
    }

    /** The handler of the listening socket: refuses connections over the limits on the accept thread. */
    ChannelHandler acceptGate() {
        return acceptGate;
    }

    /** Logs the summaries of problem lines held back (called every second). */
    void flushProblems() {
        problems.flush();
    }

    java.time.Duration tlsReloadInterval() {
        return config.tlsReloadInterval();
    }

    /**
     * Requests read and not yet answered, summed over the open connections (each count read without
     * synchronisation from its event loop: for the metrics gauge, a moment stale at worst).
     */
    long outstandingRequests() {
        long n = 0;
        for (Channel ch : channels) {
            ChannelHandler h = ch.pipeline().get("connection");
            if (h instanceof ConnectionHandler c) {
                n += c.inFlightForMetrics();
            }
        }
        return n;
    }

    /** Client connections open now. */
    int open() {
        return channels.size();
    }

    OutboundBudget outbound() {
        return outbound;
    }

    InboundBudget inbound() {
        return inbound;
    }

    /** Closes every open client connection (no goodbye: clients see a dropped connection). */
    void closeAll() {
        channels.close().awaitUninterruptibly();
    }

    /**
     * Refuses an accepted connection over {@code maxConnections} or {@code maxConnectionsPerHost} before it is
     * registered with an event loop, so a connection flood costs the accept thread a close per socket and never
     * touches the event loops that serve the clients. (The count is checked again in {@link #initChannel}, which
     * owns it.)
     */
    @ChannelHandler.Sharable
    private final class AcceptGate extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof SocketChannel ch) {
                InetSocketAddress from = ch.remoteAddress();
                if (channels.size() >= config.maxConnections()) {
                    refuseTotal(ch);
                    ch.unsafe().closeForcibly();
                    return;
                }
                if (from != null && perHost.open(from.getAddress()) >= config.maxConnectionsPerHost()) {
                    refusePerHost(from);
                    ch.unsafe().closeForcibly();
                    return;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }
}
