package dev.zkr.server.port;

import dev.zkr.server.ProblemLog;
import dev.zkr.server.ServerConfig;
import dev.zkr.wire.tls.ReloadingSslContext;
import dev.zkr.wire.tls.TlsRecords;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLPeerUnverifiedException;
import java.security.Principal;
import java.util.List;

/**
 * TLS on the client port (its {@link #clientSubject} also serves the admin port, which has the same TLS settings):
 * the first bytes of each connection decide (a TLS record starts with a ClientHello, a
 * plaintext zkr connection with a frame length). A TLS client gets an {@link SslHandler} from the current context
 * (renewed files are picked up by {@link #checkFiles()} for new connections); a plaintext client is served as before
 * with {@code portUnification}, else answered with a TLS alert and closed with one log line. Failed handshakes
 * (untrusted or missing client certificates, garbage after a TLS header) close the connection with one log line.
 */
public final class ClientPortTls {

    static final String PLAINTEXT_REFUSED = "plaintext connections refused on the TLS client port";
    static final String HANDSHAKE_FAILED = "TLS handshakes failed";

    private static final Logger log = LoggerFactory.getLogger(ClientPortTls.class);

    private final ReloadingSslContext context;
    private final boolean portUnification;
    private final ProblemLog problems;

    ClientPortTls(ServerConfig config, ProblemLog problems) {
        this.context = ReloadingSslContext.server(config.tls());
        this.portUnification = config.portUnification();
        this.problems = problems;
    }

    /** Puts the TLS detector first in a new connection's pipeline. */
    void install(ChannelPipeline pipeline) {
        pipeline.addFirst("tlsDetect", new Detector());
    }

    /** Rebuilds the context if the key or trust files changed (new connections get it). */
    void checkFiles() {
        switch (context.check()) {
            case RELOADED -> log.info("client port: reloaded the TLS material {}", context.config().files());
            case FAILED -> log.warn("client port: the changed TLS material {} does not load, keeping the previous "
                    + "one: {}", context.config().files(), context.lastError());
            case UNCHANGED -> {
            }
        }
    }

    /**
     * The subject (RFC 2253 X.500 name) of the verified certificate the client of this pipeline presented, or null
     * (plaintext, or no client certificate).
     */
    public static String clientSubject(ChannelPipeline pipeline) {
        SslHandler ssl = pipeline.get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            Principal p = ssl.engine().getSession().getPeerPrincipal();
            return p == null ? null : p.getName();
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
    }

    /** Decides TLS or plaintext on the first bytes, then takes itself out of the pipeline. */
    private final class Detector extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (in.readableBytes() < TlsRecords.HEADER) {
                return;
            }
            if (TlsRecords.looksLikeTls(in)) {
                SslHandler ssl = context.current().newHandler(ctx.alloc());
                ssl.handshakeFuture().addListener(f -> {
                    // a connection closed during its handshake (by the client, or the handshake timeout) is no
                    // TLS problem, and the timeout has its own line
                    if (!f.isSuccess() && ctx.channel().isActive()) {
                        problems.warn(HANDSHAKE_FAILED, "TLS handshake with {} failed: {}",
                                ctx.channel().remoteAddress(), firstLine(f.cause()));
                    }
                });
                ctx.pipeline().replace(this, "ssl", ssl);
            } else if (portUnification) {
                ctx.pipeline().remove(this);
            } else {
                problems.warn(PLAINTEXT_REFUSED, "closing plaintext connection from {}: the client port requires "
                        + "TLS", ctx.channel().remoteAddress());
                in.skipBytes(in.readableBytes());
                ctx.writeAndFlush(TlsRecords.unexpectedMessageAlert()).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    /**
     * True if a TLS error is among the causes and the pipeline's handshake has not succeeded: the handshake listener
     * logs it (a TLS error after the handshake is bad input like any other).
     */
    static boolean isHandshakeFailure(ChannelPipeline pipeline, Throwable cause) {
        SslHandler ssl = pipeline.get(SslHandler.class);
        if (ssl == null || ssl.handshakeFuture().isSuccess()) {
            return false;
        }
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException) {
                return true;
            }
        }
        return false;
    }

    private static String firstLine(Throwable t) {
        String m = t.getClass().getSimpleName() + ": " + t.getMessage();
        int nl = m.indexOf('\n');
        m = nl < 0 ? m : m.substring(0, nl);
        return m.length() <= 200 ? m : m.substring(0, 200) + "..."; // a TLS error may carry a hex dump
    }
}
