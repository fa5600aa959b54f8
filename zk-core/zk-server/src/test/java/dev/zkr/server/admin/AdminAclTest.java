package dev.zkr.server.admin;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.ServerFixture;
import dev.zkr.server.StderrCapture;
import dev.zkr.server.ZkServer;
import dev.zkr.server.ZkServerMain;
import dev.zkr.auth.AuthAttempts;
import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin endpoint of a real server shows a node's data only to those its ACL allows, exactly as the client port
 * does: the issue's reproduction ({@code /vault} made with {@code auth::cdrwa} by {@code digest:app:s3cret}) through
 * {@code /api/node}, {@code /api/children} and {@code /api/recipes} unauthenticated, with the right and a wrong
 * password and as super user; the admin-only views; bad credentials and guessing; the log, {@code /metrics} and the
 * data directory's files audited for a marker written as node data.
 */
class AdminAclTest {

    static final String SECRET = "s3cret-vault-data-7f1c";
    static final String APP = "app:s3cret";
    static final String SUPER = "super:root-pw";

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();
    private ZkServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (server != null) {
            server.close();
        }
    }

    private ZkServer start(Consumer<ServerConfig.Builder> custom) {
        ServerConfig.Builder b = ServerFixture.config(dir).adminPort(0).snapshotInterval(5);
        custom.accept(b);
        server = ZkServer.start(b.build());
        return server;
    }

    private ZkClient client(String... digests) {
        var b = ZkClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(10));
        for (String d : digests) {
            b.authInfo("digest", d.getBytes(StandardCharsets.UTF_8));
        }
        ZkClient c = b.build();
        open.add(c);
        return c;
    }

    /** {@code zkr --auth digest:app:s3cret create --acl auth::cdrwa /vault "secret"}, with a lock inside. */
    private void vault() {
        ZkClient app = client(APP);
        app.create("/vault", SECRET.getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        app.create("/vault/lock-", (SECRET + "-holder").getBytes(StandardCharsets.UTF_8),
                CreateMode.EPHEMERAL_SEQUENTIAL, Acls.CREATOR_ALL);
        app.create("/open", "public".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
        app.create("/open/locks", new byte[0], CreateMode.PERSISTENT);
        app.create("/open/locks/lock-", (SECRET + "-in-open").getBytes(StandardCharsets.UTF_8),
                CreateMode.EPHEMERAL_SEQUENTIAL, Acls.CREATOR_ALL);
    }

    HttpResponse<String> get(String path, String basic) throws Exception {
        return get(path, basic == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                basic.getBytes(StandardCharsets.UTF_8)), false);
    }

    HttpResponse<String> get(String path, String authorization, boolean console) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(server.adminUrl() + path.substring(1)))
                .timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            r.header("Authorization", authorization);
        }
        if (console) {
            r.header(AdminHandler.CONSOLE_HEADER, "1");
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Neither the data as text nor its base64 appears in {@code body}. */
    static void noSecret(String body, String what) {
        assertFalse(body.contains(SECRET), what + " shows the secret:\n" + body);
        String b64 = Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
        assertFalse(body.contains(b64), what + " shows the secret in base64:\n" + body);
    }

    @Test
    void theIssuesReproductionShowsNoDataWithoutTheRightIdentity() throws Exception {
        start(b -> { });
        vault();
        ZkClient anonymous = client();
        assertThrows(ZkException.NoAuth.class, () -> anonymous.getData("/vault"), "the client port refuses");

        HttpResponse<String> node = get("/api/node?path=/vault", null);
        assertEquals(401, node.statusCode(), node.body());
        assertTrue(node.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic realm=\"zkr\""),
                node.headers().toString());
        noSecret(node.body(), "/api/node unauthenticated");
        HttpResponse<String> console = get("/api/node?path=/vault", null, true);
        assertEquals(401, console.statusCode());
        assertTrue(console.headers().firstValue("WWW-Authenticate").isEmpty(), "no browser dialog for the console");

        HttpResponse<String> root = get("/api/children?path=/", null);
        assertEquals(200, root.statusCode(), root.body());
        noSecret(root.body(), "/api/children of / unauthenticated");
        assertTrue(root.body().contains("{\"name\":\"vault\",\"permission\":false}"), "the name only:\n" + root.body());
        assertTrue(root.body().contains("\"name\":\"open\",\"permission\":true,\"text\":\"public\""), root.body());

        HttpResponse<String> inside = get("/api/children?path=/vault", null);
        assertEquals(401, inside.statusCode(), "getChildren of /vault needs READ on /vault: " + inside.body());
        noSecret(inside.body(), "/api/children of /vault unauthenticated");
        assertFalse(inside.body().contains("lock-"), "not even the names:\n" + inside.body());

        HttpResponse<String> recipes = get("/api/recipes?path=/", null);
        assertEquals(200, recipes.statusCode(), "loopback may see the recipe scan by default: " + recipes.body());
        noSecret(recipes.body(), "/api/recipes unauthenticated");
        assertTrue(recipes.body().contains("\"path\":\"/open/locks\",\"kind\":\"lock\""),
                "the lock in /open is found, its holder's name shown:\n" + recipes.body());
        assertFalse(recipes.body().contains("\"path\":\"/vault\""), "nothing inside /vault:\n" + recipes.body());
        HttpResponse<String> missing = get("/api/node?path=/nothing-here", null);
        assertEquals(404, missing.statusCode(), "a missing node is missing, as on the client port");
    }

    @Test
    void theRightPasswordShowsTheDataAWrongOneGets401AndNoData() throws Exception {
        start(b -> { });
        vault();
        HttpResponse<String> node = get("/api/node?path=/vault", APP);
        assertEquals(200, node.statusCode(), node.body());
        assertTrue(node.body().contains("\"text\":\"" + SECRET + "\""), node.body());
        HttpResponse<String> children = get("/api/children?path=/vault", APP);
        assertEquals(200, children.statusCode(), children.body());
        assertTrue(children.body().contains(SECRET + "-holder"), children.body());
        HttpResponse<String> recipes = get("/api/recipes?path=/", APP);
        assertTrue(recipes.body().contains(SECRET + "-holder") && recipes.body().contains(SECRET + "-in-open"),
                "the holders' data under the right identity:\n" + recipes.body());

        HttpResponse<String> wrong = get("/api/node?path=/vault", "app:guess");
        assertEquals(401, wrong.statusCode(), wrong.body());
        noSecret(wrong.body(), "a wrong password");
        HttpResponse<String> wrongChildren = get("/api/children?path=/", "app:guess");
        noSecret(wrongChildren.body(), "children under a wrong password");
        HttpResponse<String> wrongRecipes = get("/api/recipes?path=/", "app:guess");
        noSecret(wrongRecipes.body(), "recipes under a wrong password");
    }

    @Test
    void theSuperUserSeesEverythingAndIsTheOnlyAdminByDefaultOnceConfigured() throws Exception {
        start(b -> b.superDigest(Acls.generateDigest(SUPER)));
        vault();
        HttpResponse<String> node = get("/api/node?path=/vault", SUPER);
        assertEquals(200, node.statusCode(), node.body());
        assertTrue(node.body().contains(SECRET), node.body());
        assertEquals(200, get("/sessions", SUPER).statusCode());
        assertEquals(200, get("/watches", SUPER).statusCode());
        assertTrue(get("/api/recipes?path=/", SUPER).body().contains(SECRET + "-holder"));
        // with a super user configured and no admin.auth, loopback alone is not enough
        for (String view : List.of("/sessions", "/api/sessions", "/watches", "/api/watches", "/api/recipes?path=/")) {
            HttpResponse<String> r = get(view, null);
            assertEquals(401, r.statusCode(), view + ": " + r.body());
            assertTrue(r.body().contains("needs the super user"), r.body());
        }
        // two refusals with credentials (a third would start this address's guessing wait)
        assertEquals(401, get("/sessions", APP).statusCode(), "/sessions as app");
        assertEquals(401, get("/api/recipes?path=/", APP).statusCode(), "the recipe scan as app");
        // the open views stay open
        for (String view : List.of("/metrics", "/health", "/status", "/api/status", "/api/ensemble")) {
            assertEquals(200, get(view, null).statusCode(), view);
        }
    }

    @Test
    void adminAuthNamesWhoMaySeeTheAdminViews() throws Exception {
        Id ops = Acls.digest("ops", "ops-pw");
        start(b -> b.adminAuth(List.of(ops)));
        vault();
        for (String view : List.of("/sessions", "/watches", "/api/recipes?path=/")) {
            assertEquals(401, get(view, null).statusCode(), view);
            HttpResponse<String> r = get(view, "ops:ops-pw");
            assertEquals(200, r.statusCode(), view + " as ops: " + r.body());
        }
        assertEquals(401, get("/sessions", APP).statusCode(), "app is not named in admin.auth");
        HttpResponse<String> sessions = get("/sessions", "ops:ops-pw");
        assertTrue(sessions.body().contains("\"count\":1"), sessions.body());
        // ops may see the recipe scan, but not the data the ACLs withhold from it
        noSecret(get("/api/recipes?path=/", "ops:ops-pw").body(), "recipes as ops");
        noSecret(get("/api/node?path=/vault", "ops:ops-pw").body(), "node as ops");
    }

    @Test
    void theAdminRuleOfEachConfiguration() throws Exception {
        ServerConfig plain = ServerFixture.config(dir).build();
        AdminAuth loopbackOnly = new AdminAuth(plain);
        java.net.InetSocketAddress far = new java.net.InetSocketAddress(
                java.net.InetAddress.getByAddress(new byte[] {10, 1, 2, 3}), 40000);
        java.net.InetSocketAddress near = new java.net.InetSocketAddress(
                java.net.InetAddress.getLoopbackAddress(), 40000);
        assertTrue(loopbackOnly.admin(loopbackOnly.caller(near, null, null)));
        assertFalse(loopbackOnly.admin(loopbackOnly.caller(far, null, null)), "not from another host by default");
        assertTrue(loopbackOnly.adminNeedsLoopback());
        String basicApp = "Basic " + Base64.getEncoder().encodeToString(APP.getBytes(StandardCharsets.UTF_8));
        AdminAuth.Caller app = loopbackOnly.caller(far, basicApp, null);
        assertEquals(List.of(new Id("ip", "10.1.2.3"), Acls.digest("app", "s3cret")), app.ids());
        assertEquals("app", app.user());

        AdminAuth byIp = new AdminAuth(ServerFixture.config(dir).adminAuth(List.of(new Id("ip", "10.1.0.0/16")))
                .build());
        assertTrue(byIp.admin(byIp.caller(far, null, null)), "an ip range in admin.auth");
        assertFalse(byIp.admin(byIp.caller(near, null, null)), "loopback is not in it");

        AdminAuth byCert = new AdminAuth(ServerFixture.config(dir).adminAuth(List.of(new Id("x509", "CN=ops,O=zkr")))
                .build());
        assertTrue(byCert.admin(byCert.caller(far, null, "CN=ops,O=zkr")), "a certificate subject in admin.auth");
        assertFalse(byCert.admin(byCert.caller(far, null, "CN=app,O=zkr")));

        AdminAuth x509Super = new AdminAuth(ServerFixture.config(dir).x509SuperUser("CN=root,O=zkr").build());
        assertTrue(x509Super.admin(x509Super.caller(far, null, "CN=root,O=zkr")), "the x509 super user");
        assertFalse(x509Super.admin(x509Super.caller(near, null, null)), "a super user configured: loopback is not");
    }

    @Test
    void adminAuthIsReadFromThePropertiesAndCheckedAtStart() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("dataDir", dir.toString());
        p.setProperty("admin.auth", " digest:ops:" + Acls.generateDigest("ops:pw").split(":")[1]
                + " ; x509:CN=ops,O=example ;ip:10.0.0.0/8");
        ServerConfig c = ServerConfig.fromProperties(p);
        assertEquals(List.of(Acls.digest("ops", "pw"), new Id("x509", "CN=ops,O=example"), new Id("ip", "10.0.0.0/8")),
                c.adminAuth());
        assertEquals(c.adminAuth(), c.toBuilder().build().adminAuth());
        p.setProperty("admin.auth", "digest:ops");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.fromProperties(p));
        assertTrue(bad.getMessage().contains("admin.auth: malformed digest id"), bad.getMessage());
        p.setProperty("admin.auth", "nosuch:x");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(p)).getMessage()
                .contains("unknown scheme nosuch"));
        p.remove("admin.auth");
        p.setProperty("admin.tls", "true");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(p)).getMessage()
                .contains("admin.tls needs the client port's TLS settings"));
    }

    @Test
    void badCredentialsAndBadPathsGetA4xxAndTheServerGoesOn() throws Exception {
        start(b -> { });
        vault();
        try (StderrCapture err = new StderrCapture()) {
            for (String header : List.of("Bearer abc", "Basic !!!not-base64!!!", "Basic " + b64("no-colon"),
                    "Basic " + b64(":no-user"), "Basic " + b64("ctl\u0001:x"), "Basic " + "A".repeat(2000))) {
                HttpResponse<String> r = get("/api/node?path=/vault", header, false);
                assertEquals(400, r.statusCode(), header + ": " + r.body());
                noSecret(r.body(), header);
            }
            for (String path : List.of("/api/node?path=%2Fvault%2F..%2Fopen", "/api/node?path=..%2Fvault",
                    "/api/node?path=%2Fvault%00", "/api/children?path=//vault", "/api/node?path=/vault/")) {
                HttpResponse<String> r = get(path, null);
                assertEquals(400, r.statusCode(), path + ": " + r.body());
                noSecret(r.body(), path);
            }
            HttpResponse<String> huge = get("/api/node?path=/" + "x".repeat(10_000), null);
            assertTrue(huge.statusCode() >= 400 && huge.statusCode() < 500, "a huge path: " + huge.statusCode());
            assertEquals(200, get("/api/node?path=/open", null).statusCode(), "the endpoint goes on serving");
            assertEquals("public", new String(client().getData("/open").data(), StandardCharsets.UTF_8),
                    "and the client port too");
            String log = err.text();
            assertTrue(log.contains("admin endpoint: bad credentials from"), log);
            assertFalse(log.contains("no-colon") || log.contains("!!!not-base64"), "no credentials in the log:\n"
                    + log);
        }
    }

    @Test
    void guessingPasswordsCostsTheGuesserTimeAndNobodyElse() throws Exception {
        start(b -> { });
        vault();
        int refused = 0;
        HttpResponse<String> r;
        do {
            r = get("/api/node?path=/vault", "app:guess-" + refused);
            if (r.statusCode() == 401) {
                refused++;
            }
        } while (r.statusCode() == 401 && refused < 50);
        assertEquals(AuthAttempts.FREE_FAILURES, refused, "the free refusals, then the wait");
        assertEquals(429, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Retry-After").isPresent(), r.headers().toString());
        HttpResponse<String> right = get("/api/node?path=/vault", APP);
        assertEquals(429, right.statusCode(), "during the wait even the right password is not evaluated");
        noSecret(right.body(), "the right password during the wait");
        assertEquals(200, get("/api/node?path=/open", null).statusCode(), "a request without credentials is served");
        assertEquals(200, get("/metrics", APP).statusCode(), "open views ignore credentials");
        assertEquals("public", new String(client().getData("/open").data(), StandardCharsets.UTF_8));
    }

    /**
     * The audit of the other exits: a server in a child JVM logging at TRACE (every level) keeps a node whose data
     * is a marker and whose owner's password is another; the node is written past a snapshot, read and refused
     * through both ports, with right and wrong passwords, bad versions and admin refusals. Neither marker appears in
     * any log line nor in {@code /metrics} (which names no path either), and every file the server made in its data
     * directory is readable by the server's user only.
     */
    @Test
    void theMarkerIsInNoLogLineNorMetricsAndTheDataFilesAreTheServersOnly() throws Exception {
        String marker = "MARKER-" + SECRET;
        String password = "pw-" + SECRET;
        Path data = dir.resolve("data");
        Path conf = dir.resolve("zkr.properties");
        Files.writeString(conf, "dataDir=" + data + "\nport=0\nadminPort=0\ntickTime=100\nsnapshotInterval=5\n"
                + "superDigest=" + Acls.generateDigest("super:" + password) + "\n");
        Path log = dir.resolve("server.log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace", "-cp", System.getProperty("java.class.path"),
                ZkServerMain.class.getName(), conf.toString()).redirectError(log.toFile()).start();
        try {
            java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8));
            String connect = null;
            String admin = null;
            for (String line; (admin == null || connect == null) && (line = out.readLine()) != null; ) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("listening on (\\S+) ").matcher(line);
                if (m.find()) {
                    connect = m.group(1);
                }
                m = java.util.regex.Pattern.compile("admin endpoint on (\\S+) ").matcher(line);
                if (m.find()) {
                    admin = m.group(1);
                }
            }
            assertTrue(connect != null && admin != null, "the child server started: " + Files.readString(log));
            String adminUrl = admin;
            ZkClient owner = ZkClient.builder().connectString(connect).sessionTimeout(Duration.ofSeconds(10))
                    .authInfo("digest", ("owner:" + password).getBytes(StandardCharsets.UTF_8)).build();
            ZkClient other = ZkClient.builder().connectString(connect).sessionTimeout(Duration.ofSeconds(10))
                    .authInfo("digest", ("owner:wrong-" + password).getBytes(StandardCharsets.UTF_8)).build();
            open.add(owner);
            open.add(other);
            String path = "/m";
            owner.create(path, marker.getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT,
                    List.of(new Acl(Perms.ALL, Acls.digest("owner", password))));
            for (int i = 0; i < 10; i++) { // past the snapshot interval: a snapshot holds the marker
                owner.setData(path, marker.getBytes(StandardCharsets.UTF_8), -1);
            }
            assertThrows(ZkException.NoAuth.class, () -> other.getData(path));
            assertThrows(ZkException.NoAuth.class, () -> other.setData(path, new byte[1], -1));
            assertThrows(ZkException.BadVersion.class, () -> owner.setData(path, new byte[1], 1));
            assertThrows(ZkException.NodeExists.class, () -> owner.create(path, marker.getBytes(
                    StandardCharsets.UTF_8), CreateMode.PERSISTENT));
            java.util.function.BiFunction<String, String, HttpResponse<String>> at = (target, basic) -> {
                try {
                    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(adminUrl + target.substring(1)));
                    if (basic != null) {
                        r.header("Authorization", "Basic " + b64(basic));
                    }
                    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            assertEquals(401, at.apply("/api/node?path=" + path, null).statusCode());
            assertTrue(at.apply("/api/node?path=" + path, "owner:" + password).body().contains(marker));
            assertEquals(401, at.apply("/api/node?path=" + path, "owner:wrong").statusCode());
            assertTrue(at.apply("/api/recipes?path=/", "super:" + password).statusCode() == 200);
            assertEquals(401, at.apply("/sessions", "owner:" + password).statusCode());
            assertEquals(400, at.apply("/api/node?path=" + path, "no-colon").statusCode());
            String metrics = at.apply("/metrics", null).body();
            assertTrue(metrics.contains("zkr_znodes"), metrics);
            assertFalse(metrics.contains(marker) || metrics.contains("\"" + path + "\""), "/metrics names no path "
                    + "or data:\n" + metrics);
            assertFalse(metrics.contains(password), "or password");
        } finally {
            p.destroy();
            p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        String text = Files.readString(log);
        assertTrue(text.contains("DEBUG") || text.contains("TRACE"), "the server logged at every level:\n" + text);
        assertTrue(text.contains("admin endpoint: refused /sessions"), text);
        assertFalse(text.contains(marker), "the log holds no node data:\n" + text);
        assertFalse(text.contains(password), "the log holds no password:\n" + text);
        assertFalse(text.contains(Acls.generateDigest("owner:" + password).split(":")[1]),
                "nor its digest:\n" + text);
        if (data.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            List<Path> files;
            try (Stream<Path> s = Files.walk(data)) {
                files = s.toList();
            }
            assertTrue(files.stream().anyMatch(f -> f.toString().contains("snapshot")), "a snapshot was written: "
                    + files);
            Set<PosixFilePermission> others = Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ,
                    PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE,
                    PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
            for (Path f : files) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(f);
                assertTrue(perms.stream().noneMatch(others::contains), f + " is open to others: " + perms);
            }
        }
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
