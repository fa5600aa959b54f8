package dev.zkr.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** Netty bootstrap of the client port: binds, accepts, and closes everything on stop. */
final class NettyServer {

    private final EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("zkr-accept", true));
    private final EventLoopGroup workers = new NioEventLoopGroup(
            Math.max(2, Runtime.getRuntime().availableProcessors()), new DefaultThreadFactory("zkr-io", true));
    private final ServerChannelInitializer initializer;
    private Channel serverChannel;

    NettyServer(ServerChannelInitializer initializer) {
        this.initializer = initializer;
    }

    ServerChannelInitializer initializer() {
        return initializer;
    }

    /** Binds the port; throws {@link IllegalStateException} with the address if it cannot. */
    InetSocketAddress bind(InetSocketAddress address) {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .handler(initializer.acceptGate())
                .childHandler(initializer);
        try {
            serverChannel = b.bind(address).syncUninterruptibly().channel();
            boss.next().scheduleAtFixedRate(initializer::flushProblems, 1, 1, TimeUnit.SECONDS);
            long reloadMs = initializer.tlsReloadInterval().toMillis();
            boss.next().scheduleWithFixedDelay(initializer::checkTlsFiles, reloadMs, reloadMs, TimeUnit.MILLISECONDS);
        } catch (Exception e) { // Netty rethrows a BindException unchecked
            shutdown(false);
            throw new IllegalStateException("cannot bind " + address + ": " + e.getMessage(), e);
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Stops accepting new connections. */
    void stopAccepting() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
    }

    /** Closes the listening socket, every connection and the event loops. */
    void shutdown(boolean graceful) {
        stopAccepting();
        initializer.closeAll();
        if (graceful) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        } else {
            workers.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            boss.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
