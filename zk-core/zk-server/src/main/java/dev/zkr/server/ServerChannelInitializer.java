package dev.zkr.server;

import dev.zkr.wire.Frames;
import dev.zkr.wire.MessageCodec;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Pipeline order of a client connection: connection limit, framing + codec, then the connection handler. */
@ChannelHandler.Sharable
final class ServerChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger log = LoggerFactory.getLogger(ServerChannelInitializer.class);

    private final ServerConfig config;
    private final Core core;
    private final ChannelGroup channels = new DefaultChannelGroup("zkr-clients", GlobalEventExecutor.INSTANCE);

    ServerChannelInitializer(ServerConfig config, Core core) {
        this.config = config;
        this.core = core;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (channels.size() >= config.maxConnections()) {
            log.warn("refusing connection from {}: {} connections open (maxConnections)", ch.remoteAddress(),
                    channels.size());
            ch.close();
            return;
        }
        channels.add(ch);
        Frames.install(ch.pipeline(), MessageCodec.maxFrameSize(config.maxDataSize()));
        ch.pipeline().addLast("connection", new ConnectionHandler(config, core));
    }

    /** Closes every open client connection (no goodbye: clients see a dropped connection). */
    void closeAll() {
        channels.close().awaitUninterruptibly();
    }
}
