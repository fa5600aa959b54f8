package dev.zkr.server.port;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.round.Core;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** Netty bootstrap of the client port: binds, accepts, and closes everything on stop. */
public final class NettyServer {

    /** The listening socket's backlog (the four-letter word {@code conf} reports it). */
    static final int BACKLOG = 1024;

    private final ServerChannelInitializer initializer;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private Channel serverChannel;

    /**
     * The client port of a server whose requests go to {@code core}; {@code metrics} is told of every answered
     * request, or null when the server keeps no metrics; the four-letter words read {@code tree} and (inside a round)
     * {@code watches}. Nothing is bound before {@link #bind}.
     */
    public NettyServer(ServerConfig config, Core core, RequestMetrics metrics, dev.zkr.tree.DataTree tree,
                       dev.zkr.tree.WatchTable watches) {
        this.initializer = new ServerChannelInitializer(config, core, metrics, tree, watches);
        this.boss = new NioEventLoopGroup(1, new DefaultThreadFactory("zkr-accept", true));
        this.workers = new NioEventLoopGroup(Math.max(2, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory("zkr-io", true));
    }

    /** The connections' shared state (tests read its budgets). */
    ServerChannelInitializer initializer() {
        return initializer;
    }

    /** Client connections open now. */
    public int open() {
        return initializer.open();
    }

    /** Client requests read and not yet answered, summed over the open connections (metrics: a moment stale). */
    public long outstandingRequests() {
        return initializer.outstandingRequests();
    }

    /** Subjects of the verified TLS client certificates of the open connections (test access). */
    public java.util.List<String> clientCertificateSubjects() {
        return initializer.clientCertificateSubjects();
    }

    /** Binds the port; throws {@link IllegalStateException} with the address if it cannot. */
    public InetSocketAddress bind(InetSocketAddress address) {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .handler(initializer.acceptGate())
                .childHandler(initializer);
        try {
            serverChannel = b.bind(address).syncUninterruptibly().channel();
            initializer.bound(((InetSocketAddress) serverChannel.localAddress()).getPort());
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
    public void stopAccepting() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
    }

    /** Closes the listening socket, every connection and the event loops. */
    public void shutdown(boolean graceful) {
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
