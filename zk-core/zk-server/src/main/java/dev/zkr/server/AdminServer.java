package dev.zkr.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The admin HTTP endpoint ({@code /metrics}, {@code /status}, {@code /health}, {@code /sessions}, {@code /watches},
 * the web console and its {@code /api/} reads) on Netty's HTTP codec, with its own event loop of one thread: it never
 * runs on the client event loops or the request pipeline. Off unless {@link ServerConfig#adminPort()} is set.
 */
final class AdminServer {

    /** Largest request accepted (headers and body); the endpoint only answers GETs. */
    static final int MAX_REQUEST_BYTES = 16 * 1024;
    /** A connection that sends nothing for this long is closed. */
    static final int IDLE_SECONDS = 30;

    private final EventLoopGroup loop = new NioEventLoopGroup(1, new DefaultThreadFactory("zkr-admin", true));
    private final AdminHandler handler;
    private Channel serverChannel;

    AdminServer(AdminHandler handler) {
        this.handler = handler;
    }

    /** Binds the admin port; throws {@link IllegalStateException} with the address if it cannot. */
    InetSocketAddress bind(InetSocketAddress address) {
        ServerBootstrap b = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast("idle", new ReadTimeoutHandler(IDLE_SECONDS))
                                .addLast("http", new HttpServerCodec(4096, 8192, 8192))
                                .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast("admin", handler);
                    }
                });
        try {
            serverChannel = b.bind(address).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows a BindException unchecked
            close();
            throw new IllegalStateException("cannot bind the admin port " + address + ": " + e.getMessage(), e);
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Closes the port, its connections and its thread. */
    void close() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
