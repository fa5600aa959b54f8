package dev.zkr.server.admin;

import dev.zkr.server.ProblemLog;
import dev.zkr.server.ServerConfig;
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
import dev.zkr.server.port.NettyServer;
import dev.zkr.server.replication.ReplicaDriver;
import dev.zkr.server.round.Core;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.tls.ReloadingSslContext;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The admin HTTP endpoint ({@code /metrics}, {@code /status}, {@code /health}, {@code /sessions}, {@code /watches},
 * the web console and its {@code /api/} reads) on Netty's HTTP codec, with its own event loop of one thread: it never
 * runs on the client event loops or the request pipeline. Off unless {@link ServerConfig#adminPort()} is set; over
 * TLS with the client port's settings when {@link ServerConfig#adminTls()} is.
 */
public final class AdminServer {

    /** Largest request accepted (headers and body); the endpoint only answers GETs. */
    static final int MAX_REQUEST_BYTES = 16 * 1024;
    /** A connection that sends nothing for this long is closed. */
    static final int IDLE_SECONDS = 30;

    private final EventLoopGroup loop = new NioEventLoopGroup(1, new DefaultThreadFactory("zkr-admin", true));
    private final AdminHandler handler;
    /** TLS with the client port's settings ({@code admin.tls}), or null for plain HTTP. */
    private final ReloadingSslContext tls;
    private Channel serverChannel;

    /**
     * The admin endpoint of a server: its views of the round ({@code core}, the tree and its watches), of the
     * replica ({@code driver}, null for {@code QuorumOfOne}) and of the client port, its metrics, and the ensemble id
     * its peers check (shown in {@code /status}: a server that joins is configured with it).
     */
    public static AdminServer of(ServerConfig config, Core core, DataTree tree, WatchTable watches,
                                 ReplicaDriver driver, NettyServer clientPort, ServerMetrics metrics, long ensembleId) {
        return new AdminServer(new AdminHandler(new AdminView(config, core, tree, watches, driver, clientPort,
                metrics, ensembleId), metrics, new AdminAuth(config)), config);
    }

    AdminServer(AdminHandler handler, ServerConfig config) {
        this.handler = handler;
        this.tls = config.adminTls() ? ReloadingSslContext.server(config.tls()) : null;
    }

    /** Binds the admin port; throws {@link IllegalStateException} with the address if it cannot. */
    public InetSocketAddress bind(InetSocketAddress address) {
        ServerBootstrap b = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            tls.check(); // renewed files are picked up by the next connection
                            ch.pipeline().addLast("ssl", tls.current().newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast("idle", new ReadTimeoutHandler(IDLE_SECONDS))
                                .addLast("http", new HttpServerCodec(4096, 8192, 8192))
                                .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast("admin", handler);
                    }
                });
        // the summary of refusals held back by the handler's problem log is written when its window is over
        loop.scheduleAtFixedRate(handler::flushProblems, ProblemLog.WINDOW_SECONDS, ProblemLog.WINDOW_SECONDS,
                TimeUnit.SECONDS);
        try {
            serverChannel = b.bind(address).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows a BindException unchecked
            close();
            throw new IllegalStateException("cannot bind the admin port " + address + ": " + e.getMessage(), e);
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Closes the port, its connections and its thread. */
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
