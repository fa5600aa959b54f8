package dev.zkr.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.ReadTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes the admin endpoint's requests (on its own event loop). Only GET is answered (405 otherwise), unknown paths
 * get 404, a request that is not HTTP closes the connection with one log line. Every answer closes its connection
 * (the endpoint is polled, not streamed).
 */
@ChannelHandler.Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(AdminHandler.class);
    private static final String JSON = "application/json; charset=utf-8";
    /** The console's static files: URL path to resource name and content type. */
    private static final Map<String, String[]> STATIC = Map.of(
            "/", new String[] {"index.html", "text/html; charset=utf-8"},
            "/index.html", new String[] {"index.html", "text/html; charset=utf-8"},
            "/console.js", new String[] {"console.js", "text/javascript; charset=utf-8"},
            "/console.css", new String[] {"console.css", "text/css; charset=utf-8"});
    /**
     * The console's scripts come only from this endpoint and nothing inline runs: a node name or data that slipped
     * into the page as markup still could not execute.
     */
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final AdminView view;
    private final ServerMetrics metrics;
    private final Map<String, byte[]> resources = new ConcurrentHashMap<>();

    AdminHandler(AdminView view, ServerMetrics metrics) {
        this.view = view;
        this.metrics = metrics;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            log.warn("admin endpoint: closing connection from {}: not an HTTP request ({})",
                    ctx.channel().remoteAddress(), firstLine(request.decoderResult().cause()));
            ctx.close();
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        String path = uri.path();
        boolean known = STATIC.containsKey(path) || path.startsWith("/api/") || List.of("/metrics", "/status",
                "/health", "/sessions", "/watches").contains(path);
        if (!known) {
            send(ctx, HttpResponseStatus.NOT_FOUND, JSON, error("no such endpoint: " + path));
            return;
        }
        if (!request.method().equals(HttpMethod.GET)) {
            FullHttpResponse r = response(HttpResponseStatus.METHOD_NOT_ALLOWED, JSON,
                    error("only GET is answered"));
            r.headers().set(HttpHeaderNames.ALLOW, "GET");
            write(ctx, r);
            return;
        }
        try {
            route(ctx, path, uri.parameters());
        } catch (IllegalStateException e) {
            // the pipeline did not answer (stopping, or stuck): the endpoint stays up and says so
            send(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, JSON, error(e.getMessage()));
        }
    }

    private void route(ChannelHandlerContext ctx, String path, Map<String, List<String>> params) {
        switch (path) {
            case "/metrics" -> send(ctx, HttpResponseStatus.OK, metrics.contentType(),
                    metrics.scrape(view.state()));
            case "/status" -> sendJson(ctx, view.statusJson(view.state()));
            case "/health" -> {
                ServerState s = view.state();
                String body = new JsonWriter().beginObject().field("status", s.serving() ? "serving" : "not serving")
                        .field("role", s.role()).endObject().toString();
                send(ctx, s.serving() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, JSON,
                        body.getBytes(StandardCharsets.UTF_8));
            }
            case "/sessions", "/api/sessions" -> sendJson(ctx, view.sessionsJson());
            case "/watches", "/api/watches" -> sendJson(ctx, view.watchesJson());
            case "/api/status" -> sendJson(ctx, view.statusJson(view.state()));
            case "/api/ensemble" -> sendJson(ctx, view.ensembleJson());
            case "/api/children", "/api/node", "/api/recipes" -> nodeRead(ctx, path, params);
            default -> {
                String[] file = STATIC.get(path);
                byte[] body = file == null ? null : resource(file[0]);
                if (body == null) {
                    send(ctx, HttpResponseStatus.NOT_FOUND, JSON, error("no such endpoint: " + path));
                } else {
                    send(ctx, HttpResponseStatus.OK, file[1], body);
                }
            }
        }
    }

    private void nodeRead(ChannelHandlerContext ctx, String endpoint, Map<String, List<String>> params) {
        List<String> p = params.get("path");
        String path = p == null || p.isEmpty() ? "/" : p.get(0);
        if (!AdminView.validPath(path)) {
            send(ctx, HttpResponseStatus.BAD_REQUEST, JSON, error("invalid path"));
            return;
        }
        String body = switch (endpoint) {
            case "/api/children" -> view.childrenJson(path);
            case "/api/node" -> view.nodeJson(path);
            default -> view.recipesJson(path);
        };
        if (body == null) {
            send(ctx, HttpResponseStatus.NOT_FOUND, JSON, error("no node " + path));
        } else {
            sendJson(ctx, body);
        }
    }

    private byte[] resource(String name) {
        return resources.computeIfAbsent(name, n -> {
            try (InputStream in = AdminHandler.class.getResourceAsStream("/dev/zkr/server/console/" + n)) {
                return in == null ? null : in.readAllBytes();
            } catch (IOException e) {
                return null;
            }
        });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ReadTimeoutException) {
            ctx.close(); // an idle connection: nothing to report
            return;
        }
        if (!(cause instanceof IOException)) {
            log.warn("admin endpoint: closing connection from {}: {}", ctx.channel().remoteAddress(),
                    firstLine(cause));
        }
        ctx.close();
    }

    private static byte[] error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString()
                .getBytes(StandardCharsets.UTF_8);
    }

    private static void sendJson(ChannelHandlerContext ctx, String json) {
        send(ctx, HttpResponseStatus.OK, JSON, json.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String type, byte[] body) {
        write(ctx, response(status, type, body));
    }

    private static FullHttpResponse response(HttpResponseStatus status, String type, byte[] body) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set("X-Content-Type-Options", "nosniff")
                .set("Content-Security-Policy", CSP);
        return r;
    }

    private static void write(ChannelHandlerContext ctx, FullHttpResponse r) {
        ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }

    /** The error's type and message for one log line: printable ASCII only, at most 100 characters. */
    private static String firstLine(Throwable t) {
        String s = t == null ? "" : t.getClass().getSimpleName() + ": " + t.getMessage();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 100; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.length() < s.length() ? b + "..." : b.toString();
    }
}
