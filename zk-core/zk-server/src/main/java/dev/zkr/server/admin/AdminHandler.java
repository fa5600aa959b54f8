package dev.zkr.server.admin;

import dev.zkr.server.ProblemLog;
import dev.zkr.server.port.ClientPortTls;
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
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
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

    /** The problem-log kinds of the endpoint's refusals (rate limited: a guesser cannot flood the log). */
    static final String BAD_CREDENTIALS = "admin endpoint bad credentials";
    static final String REFUSED = "admin endpoint refusals";
    /** The header the console sends: its 401s carry no WWW-Authenticate, so the browser shows no dialog of its own. */
    static final String CONSOLE_HEADER = "X-Zkr-Console";

    private final AdminView view;
    private final ServerMetrics metrics;
    private final AdminAuth auth;
    private final ProblemLog problems;
    private final Map<String, byte[]> resources = new ConcurrentHashMap<>();

    AdminHandler(AdminView view, ServerMetrics metrics, AdminAuth auth) {
        this.view = view;
        this.metrics = metrics;
        this.auth = auth;
        this.problems = ProblemLog.server(log);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            log.warn("admin endpoint: closing connection from {}: not an HTTP request ({})",
                    ctx.channel().remoteAddress(), firstLine(cause));
            if (cause instanceof TooLongHttpLineException) {
                send(ctx, HttpResponseStatus.REQUEST_URI_TOO_LONG, JSON, error("request line too long"));
            } else if (cause instanceof TooLongHttpHeaderException) {
                send(ctx, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, JSON, error("headers too large"));
            } else {
                ctx.close();
            }
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
            route(ctx, request, path, uri.parameters());
        } catch (IllegalStateException e) {
            // the pipeline did not answer (stopping, or stuck): the endpoint stays up and says so
            send(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, JSON, error(e.getMessage()));
        }
    }

    private void route(ChannelHandlerContext ctx, FullHttpRequest request, String path,
                       Map<String, List<String>> params) {
        switch (path) {
            case "/metrics" -> send(ctx, HttpResponseStatus.OK, metrics.contentType(),
                    metrics.scrape(view.state()));
            case "/status" -> sendJson(ctx, view.statusJson(view.state()));
            case "/health" -> {
                ServerState s = view.state();
                String body = new JsonWriter().beginObject().field("status", s.serving() ? "serving" : "not serving")
                        .field("role", s.roleName()).endObject().toString();
                send(ctx, s.serving() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, JSON,
                        body.getBytes(StandardCharsets.UTF_8));
            }
            case "/sessions", "/api/sessions" -> {
                AdminAuth.Caller c = admin(ctx, request, path);
                if (c != null) {
                    sendJson(ctx, view.sessionsJson());
                }
            }
            case "/watches", "/api/watches" -> {
                AdminAuth.Caller c = admin(ctx, request, path);
                if (c != null) {
                    sendJson(ctx, view.watchesJson());
                }
            }
            case "/api/status" -> sendJson(ctx, view.statusJson(view.state()));
            case "/api/ensemble" -> sendJson(ctx, view.ensembleJson());
            case "/api/children", "/api/node", "/api/recipes" -> nodeRead(ctx, request, path, params);
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

    /**
     * A node view, under the client port's ACL rule for the caller's ids: 404 for no node, 401 when the caller may
     * not READ it (its data and Stat are not sent). The recipe scan is an admin-only view besides.
     */
    private void nodeRead(ChannelHandlerContext ctx, FullHttpRequest request, String endpoint,
                          Map<String, List<String>> params) {
        List<String> p = params.get("path");
        String path = p == null || p.isEmpty() ? "/" : p.get(0);
        if (!AdminView.validPath(path)) {
            send(ctx, HttpResponseStatus.BAD_REQUEST, JSON, error("invalid path"));
            return;
        }
        AdminAuth.Caller caller = endpoint.equals("/api/recipes") ? admin(ctx, request, endpoint)
                : caller(ctx, request);
        if (caller == null) {
            return; // refused and answered
        }
        AdminView.Answer answer = switch (endpoint) {
            case "/api/children" -> view.childrenJson(path, caller.ids());
            case "/api/node" -> view.nodeJson(path, caller.ids());
            default -> new AdminView.Answer(AdminView.Outcome.FOUND, view.recipesJson(path, caller.ids()));
        };
        switch (answer.outcome()) {
            case FOUND -> sendJson(ctx, answer.json());
            case NO_NODE -> send(ctx, HttpResponseStatus.NOT_FOUND, JSON, error("no node " + path));
            case NO_PERMISSION -> {
                auth.refused(caller, System.nanoTime());
                unauthorized(ctx, request, "no permission to read " + path);
            }
        }
    }

    /**
     * The caller of a request that needs one; null when it was answered already: 400 for malformed credentials,
     * 429 while its address waits out refused attempts (the credentials are not evaluated).
     */
    private AdminAuth.Caller caller(ChannelHandlerContext ctx, FullHttpRequest request) {
        AdminAuth.Caller c;
        try {
            c = auth.caller(ctx.channel().remoteAddress(), request.headers().get(HttpHeaderNames.AUTHORIZATION),
                    ClientPortTls.clientSubject(ctx.pipeline()));
        } catch (AdminAuth.BadCredentials e) {
            problems.warn(BAD_CREDENTIALS, "admin endpoint: bad credentials from {}: {}",
                    ctx.channel().remoteAddress(), e.getMessage());
            send(ctx, HttpResponseStatus.BAD_REQUEST, JSON, error(e.getMessage()));
            return null;
        }
        long wait = c.credentials() ? auth.waitNanos(c, System.nanoTime()) : 0;
        if (wait > 0) {
            long ms = (wait + 999_999) / 1_000_000;
            FullHttpResponse r = response(HttpResponseStatus.TOO_MANY_REQUESTS, JSON, error("not evaluated: "
                    + "refused authentications from this address, retry in " + ms + " ms"));
            r.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString((ms + 999) / 1000));
            write(ctx, r);
            return null;
        }
        return c;
    }

    /** The caller of an admin-only view, or null when refused and answered (401/403, one log line). */
    private AdminAuth.Caller admin(ChannelHandlerContext ctx, FullHttpRequest request, String path) {
        AdminAuth.Caller c = caller(ctx, request);
        if (c == null || auth.admin(c)) {
            return c;
        }
        auth.refused(c, System.nanoTime());
        problems.warn(REFUSED, "admin endpoint: refused {} to {}{}: needs {}", path, c.address(),
                c.user() == null ? "" : " (user " + printable(c.user(), 64) + ")", auth.adminRule());
        String why = path + " needs " + auth.adminRule();
        if (auth.adminNeedsLoopback() && !c.loopback()) {
            send(ctx, HttpResponseStatus.FORBIDDEN, JSON, error(why));
        } else {
            unauthorized(ctx, request, why);
        }
        return null;
    }

    /** 401: Basic credentials may help; the console's own requests get no WWW-Authenticate (no browser dialog). */
    private static void unauthorized(ChannelHandlerContext ctx, FullHttpRequest request, String why) {
        FullHttpResponse r = response(HttpResponseStatus.UNAUTHORIZED, JSON, error(why));
        if (!request.headers().contains(CONSOLE_HEADER)) {
            r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"zkr\", charset=\"UTF-8\"");
        }
        write(ctx, r);
    }

    /** Logs the summary of refusals held back, if their window is over. */
    void flushProblems() {
        problems.flush();
    }

    private byte[] resource(String name) {
        return resources.computeIfAbsent(name, n -> {
            try (InputStream in = AdminHandler.class.getResourceAsStream("/dev/zkr/server/admin/console/" + n)) {
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
        return printable(t == null ? "" : t.getClass().getSimpleName() + ": " + t.getMessage(), 100);
    }

    /** {@code s} for a log line: printable ASCII only, at most {@code max} characters. */
    static String printable(String s, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.length() < s.length() ? b + "..." : b.toString();
    }
}
