package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The admin endpoint of a real server, over real sockets: metrics move with client operations, JSON, bad requests. */
class AdminEndpointTest {

    @TempDir
    Path dir;
    ZkServer server;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() {
        server = ZkServer.start(ServerFixture.config(dir).adminPort(0).snapshotInterval(10).build());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.adminUrl() + path.substring(1)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the first sample line of {@code metric} with exactly these labels ("" for none). */
    static double sample(String metrics, String metric, String labels) {
        String prefix = labels.isEmpty() ? metric + " " : metric + "{" + labels + "} ";
        for (String line : metrics.split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(prefix.length()).trim().split(" ")[0]);
            }
        }
        throw new AssertionError("no sample " + prefix + " in:\n" + metrics);
    }

    @Test
    void metricsMoveWithClientOperations() throws Exception {
        String before = get("/metrics").body();
        assertEquals(1, sample(before, "zkr_znodes", ""), "only the root");
        assertEquals(0, sample(before, "zkr_request_duration_seconds_count", "op=\"create\""));
        try (ZkClient c = ZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            for (int i = 0; i < 20; i++) {
                c.create("/n" + i, ("value-" + i).getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
            }
            c.create("/eph", new byte[0], CreateMode.EPHEMERAL);
            for (int i = 0; i < 5; i++) {
                c.getData("/n" + i);
            }
            c.exists("/n1", e -> { });
            HttpResponse<String> r = get("/metrics");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/plain"),
                    r.headers().toString());
            String m = r.body();
            assertTrue(m.contains("# TYPE zkr_request_duration_seconds histogram"), m);
            assertEquals(22, sample(m, "zkr_znodes", ""));
            assertEquals(21, sample(m, "zkr_request_duration_seconds_count", "op=\"create\""));
            assertEquals(5, sample(m, "zkr_request_duration_seconds_count", "op=\"getData\""));
            assertEquals(1, sample(m, "zkr_request_duration_seconds_count", "op=\"exists\""));
            assertTrue(sample(m, "zkr_request_duration_seconds_sum", "op=\"create\"") > 0);
            assertEquals(21, sample(m, "zkr_request_duration_seconds_bucket", "op=\"create\",le=\"+Inf\""));
            assertTrue(sample(m, "zkr_fsync_duration_seconds_count", "") > 0, "fsyncs were timed");
            assertTrue(sample(m, "zkr_group_commit_batch_size_sum", "") >= 22, "every txn was in a batch");
            assertEquals(1, sample(m, "zkr_sessions", ""));
            assertEquals(1, sample(m, "zkr_ephemerals", ""));
            assertEquals(1, sample(m, "zkr_watches", ""));
            assertEquals(1, sample(m, "zkr_connections", ""));
            assertEquals(0, sample(m, "zkr_outstanding_requests", ""));
            assertEquals(1, sample(m, "zkr_serving", ""));
            assertEquals(1, sample(m, "zkr_role", "role=\"leader\""));
            assertTrue(sample(m, "zkr_approximate_data_bytes", "") >= 20 * "value-0".length());
            assertTrue(sample(m, "zkr_proposal_commit_seconds_count", "") >= 21);
            ServerFixture.await("a snapshot (every 10 txns) timed", Duration.ofSeconds(20), () -> {
                try {
                    return sample(get("/metrics").body(), "zkr_snapshot_duration_seconds_count", "") > 0;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });

            String status = get("/status").body();
            assertTrue(status.contains("\"role\":\"leader\""), status);
            assertTrue(status.contains("\"znodes\":22"), status);
            assertTrue(status.contains("\"sessions\":1"), status);
            assertTrue(status.contains("\"zxid\":\"0x"), status);
            assertTrue(status.contains("\"mode\":\"standalone\""), status);

            String sessions = get("/sessions").body();
            assertTrue(sessions.contains("\"id\":\"0x" + Long.toHexString(c.sessionId()) + "\""), sessions);
            assertTrue(sessions.contains("\"ephemerals\":1"), sessions);
            String watches = get("/watches").body();
            assertTrue(watches.contains("\"total\":1"), watches);
            assertTrue(watches.contains("\"path\":\"/n1\""), watches);

            String node = get("/api/node?path=/n3").body();
            assertTrue(node.contains("\"text\":\"value-3\""), node);
            String children = get("/api/children?path=/").body();
            assertTrue(children.contains("\"name\":\"n19\""), children);
        }
        String after = get("/metrics").body();
        assertEquals(0, sample(after, "zkr_sessions", ""), "the session closed");
        assertEquals(0, sample(after, "zkr_ephemerals", ""));
        assertEquals(21, sample(after, "zkr_znodes", ""));
    }

    @Test
    void healthIsOkWhileServing() throws Exception {
        HttpResponse<String> r = get("/health");
        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains("\"status\":\"serving\""), r.body());
    }

    @Test
    void unknownPathsNonGetsAndBadNodePaths() throws Exception {
        assertEquals(404, get("/nope").statusCode());
        assertEquals(404, get("/api/node?path=/missing").statusCode());
        assertEquals(400, get("/api/node?path=no-slash").statusCode());
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(server.adminUrl() + "status"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertEquals("GET", post.headers().firstValue("allow").orElse(""));
        assertEquals(200, get("/status").statusCode(), "still serving after bad requests");
    }

    @Test
    void garbageClosesTheConnectionAndTheEndpointKeepsServing() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.adminPort())) {
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            byte[] junk = new byte[512];
            new java.util.Random(7).nextBytes(junk);
            junk[0] = 0;
            out.write(junk);
            out.write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            int n;
            StringBuilder got = new StringBuilder();
            while ((n = in.read(buf)) >= 0) { // ends when the server closes the connection
                got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            assertFalse(got.toString().contains("200 OK"), got.toString());
        } catch (IOException reset) {
            // a reset is a closed connection too
        }
        assertEquals(200, get("/health").statusCode());
    }

    @Test
    void consoleFilesAreServedWithAStrictContentSecurityPolicy() throws Exception {
        HttpResponse<String> page = get("/");
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("content-type").orElse("").startsWith("text/html"));
        assertTrue(page.body().contains("console.js"), page.body());
        String csp = page.headers().firstValue("content-security-policy").orElse("");
        assertTrue(csp.contains("script-src 'self'"), csp);
        assertEquals(200, get("/console.js").statusCode());
        assertEquals(200, get("/console.css").statusCode());
    }

    @Test
    void offUnlessConfigured(@TempDir Path other) {
        try (ZkServer plain = ZkServer.start(ServerFixture.config(other).build())) {
            assertEquals(-1, plain.adminPort());
            assertNull(plain.adminUrl());
        }
    }

    @Test
    void anAdminPortInUseFailsTheStartWithItsAddress(@TempDir Path other) throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> ZkServer.start(ServerFixture.config(other).adminPort(taken.getLocalPort()).build()));
            assertTrue(e.getMessage().contains("admin port") && e.getMessage().contains(
                    Integer.toString(taken.getLocalPort())), e.getMessage());
        }
        try (ZkServer again = ZkServer.start(ServerFixture.config(other).adminPort(0).build())) {
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(again.adminUrl() + "health")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode(), "the failed start released the data dir");
        }
    }

    @Test
    void propertiesTurnItOn() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("dataDir", dir.toString());
        p.setProperty("adminPort", "8081");
        ServerConfig c = ServerConfig.fromProperties(p);
        assertEquals(8081, c.adminPort());
        assertTrue(c.adminAddress().isLoopbackAddress());
        java.util.Properties q = new java.util.Properties();
        q.setProperty("dataDir", dir.toString());
        assertFalse(ServerConfig.fromProperties(q).adminEnabled());
    }
}
