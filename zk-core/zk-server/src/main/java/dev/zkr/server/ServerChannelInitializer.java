package dev.zkr.server;

import dev.zkr.wire.Frames;
import dev.zkr.wire.MessageCodec;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;

/**
 * Pipeline order of a client connection: connection limits (in total and per client IP), outbound water marks,
 * framing + codec, then the connection handler.
 */
@ChannelHandler.Sharable
final class ServerChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger log = LoggerFactory.getLogger(ServerChannelInitializer.class);

    private final ServerConfig config;
    private final Core core;
    private final ChannelGroup channels = new DefaultChannelGroup("zkr-clients", GlobalEventExecutor.INSTANCE);
    private final HostConnections perHost;
    private final OutboundBudget budget;
    private final WriteBufferWaterMark waterMark;

    ServerChannelInitializer(ServerConfig config, Core core) {
        this.config = config;
        this.core = core;
        this.perHost = new HostConnections(config.maxConnectionsPerHost());
        this.budget = new OutboundBudget(config.maxOutboundBytesTotal());
        this.waterMark = new WriteBufferWaterMark(config.outboundHighWaterMark() / 2, config.outboundHighWaterMark());
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (channels.size() >= config.maxConnections()) {
            log.warn("refusing connection from {}: {} connections open (maxConnections)", ch.remoteAddress(),
                    channels.size());
            ch.close();
            return;
        }
        InetAddress host = ch.remoteAddress() == null ? null : ch.remoteAddress().getAddress();
        if (host != null) {
            int open = perHost.tryOpen(host);
            if (open < 0) {
                log.warn("refusing connection from {}: {} connections open from {} (maxConnectionsPerHost)",
                        ch.remoteAddress(), config.maxConnectionsPerHost(), host.getHostAddress());
                ch.close();
                return;
            }
            ch.closeFuture().addListener(f -> perHost.closed(host));
        }
        channels.add(ch);
        ch.config().setWriteBufferWaterMark(waterMark);
        Frames.install(ch.pipeline(), MessageCodec.maxFrameSize(config.maxDataSize()));
        ch.pipeline().addLast("connection", new ConnectionHandler(config, core, budget));
    }

    /** Closes every open client connection (no goodbye: clients see a dropped connection). */
    void closeAll() {
        channels.close().awaitUninterruptibly();
    }
}
