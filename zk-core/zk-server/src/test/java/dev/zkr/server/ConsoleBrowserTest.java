package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.consensus.Zxid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The web console in a real headless browser (Debian's chromium): it renders the tree, the node, the recipes, the
 * ensemble and the sessions from a live server, and shows hostile node names and data as text — nothing the tree
 * holds runs as markup or script. Skipped when {@code /usr/bin/chromium} is not installed.
 */
class ConsoleBrowserTest {

    static final Path CHROMIUM = Path.of(System.getProperty("zkr.chromium", "/usr/bin/chromium"));
    /** A node name that is an element with an event handler if parsed as HTML ('/' cannot be in a name). */
    static final String HOSTILE_NAME = "<img src=x onerror=\"document.title='PWNED'\">";
    /** Node data that closes a script element and opens another if parsed as HTML. */
    static final String HOSTILE_DATA = "</script><script>document.title='PWNED';document.body.appendChild("
            + "document.createElement('pwned'))</script><b id=injected>bold</b>";

    /** A node name that is a script element if parsed as HTML (unclosed: a name cannot hold '/'). */
    static final String SCRIPT_NAME = "<script>document.title='PWNED';document.body.appendChild("
            + "document.createElement('pwned'))";

    @TempDir
    Path dir;
    @TempDir
    Path profile;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assumeChromium() {
        assumeTrue(Files.isExecutable(CHROMIUM), "no headless browser: " + CHROMIUM + " is not installed "
                + "(apt-get install chromium); the console's browser test is skipped");
    }

    /** How many times {@code part} occurs in {@code s}. */
    static int count(String s, String part) {
        return s.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    /** The Stat row {@code key value} of the node panel, as chromium serialises it. */
    static String statRow(String key, Object value) {
        return "<tr><td>" + key + "</td><td>" + value + "</td></tr>";
    }

    @Test
    void consoleShowsTheTreeAndEscapesHostileNamesAndData() throws Exception {
        assumeChromium();
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).adminPort(0).build());
             ZkClient c = ZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            c.create("/app", utf8("first"), CreateMode.PERSISTENT);
            c.setData("/app", utf8("second"), -1);
            c.setData("/app", utf8(HOSTILE_DATA), -1);
            c.create("/app/" + HOSTILE_NAME, utf8("x"), CreateMode.PERSISTENT);
            c.create("/app/" + SCRIPT_NAME, utf8(HOSTILE_DATA), CreateMode.PERSISTENT);
            c.create("/app/plain-node", utf8("hello console"), CreateMode.PERSISTENT);
            c.create("/app/locks", new byte[0], CreateMode.PERSISTENT);
            String holder = c.create("/app/locks/lock-", utf8("worker-1"), CreateMode.EPHEMERAL_SEQUENTIAL);
            c.create("/app/locks/lock-", utf8("worker-2"), CreateMode.EPHEMERAL_SEQUENTIAL);
            Stat app = c.exists("/app");

            String dom = dumpDom(server.adminUrl() + "#/app");

            assertTrue(dom.contains("data-loaded=\"true\""), "the console's script ran and loaded:\n" + dom);
            assertTrue(dom.contains("plain-node"), "the tree shows the children of /app:\n" + dom);
            assertTrue(dom.contains("hello console"), "with data previews:\n" + dom);
            assertTrue(dom.contains("&lt;img src=x onerror=\"document.title='PWNED'\"&gt;"),
                    "the hostile name is shown as text:\n" + dom);
            assertTrue(dom.contains("<a href=\"#\">&lt;script&gt;document.title='PWNED';document.body.appendChild("
                    + "document.createElement('pwned'))</a>"), "a child named <script> is a link showing its name as "
                    + "text:\n" + dom);
            assertTrue(dom.contains("&lt;/script&gt;&lt;script&gt;document.title='PWNED'"),
                    "hostile data is shown as text, in the preview and the node panel:\n" + dom);
            assertEquals(1, count(dom, "<script"), "the only script element is the console's own:\n" + dom);
            assertFalse(dom.contains("<img src=\"x\""), "no element was made from a node name:\n" + dom);
            assertFalse(dom.contains("<pwned>") || dom.contains("<pwned></pwned>"), "no script ran:\n" + dom);
            assertFalse(dom.contains("id=\"injected\""), "no element was made from node data:\n" + dom);
            assertTrue(dom.contains("<title>zkr console</title>"), "the title was not changed:\n" + dom);

            assertTrue(dom.contains("<code id=\"node-path\">/app</code>"), "the node panel shows /app:\n" + dom);
            assertTrue(dom.contains(statRow("czxid", Zxid.str(app.czxid())))
                    && dom.contains(statRow("mzxid", Zxid.str(app.mzxid())))
                    && dom.contains(statRow("pzxid", Zxid.str(app.pzxid()))), "with its zxids:\n" + dom);
            assertTrue(dom.contains(statRow("version", 2)) && dom.contains(statRow("cversion", app.cversion()))
                    && dom.contains(statRow("numChildren", 4))
                    && dom.contains(statRow("dataLength", utf8(HOSTILE_DATA).length))
                    && dom.contains(statRow("ephemeralOwner", 0)), "its versions and counts:\n" + dom);
            assertTrue(dom.contains("<td>mtime</td><td>" + app.mtime() + " (" + java.time.Instant.ofEpochMilli(
                    app.mtime()).toString().substring(0, 16)), "and its times:\n" + dom);

            assertTrue(dom.contains(holder.substring("/app/locks/".length())), "the lock holder is shown");
            assertTrue(dom.contains("worker-2"), "and its waiter:\n" + dom);
            assertTrue(dom.contains("(this server)"), "the ensemble panel shows this server:\n" + dom);
            assertTrue(dom.contains("0x" + Long.toHexString(c.sessionId())), "the sessions panel shows the session");
        }
    }

    /**
     * A node opened by its path (the URL's #) whose name is a {@code <script>}: the path bar, the node panel and the
     * recipes heading show the name as text.
     */
    @Test
    void aHostileNodeOpenedByItsPathShowsItsNameAsText() throws Exception {
        assumeChromium();
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).adminPort(0).build());
             ZkClient c = ZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            c.create("/app", new byte[0], CreateMode.PERSISTENT);
            String path = "/app/" + SCRIPT_NAME;
            c.create(path, utf8(HOSTILE_DATA), CreateMode.PERSISTENT);
            c.create(path + "/" + HOSTILE_NAME, utf8("child of a hostile node"), CreateMode.PERSISTENT);

            String dom = dumpDom(server.adminUrl() + "#" + java.net.URLEncoder.encode(path, StandardCharsets.UTF_8)
                    .replace("+", "%20"));

            String escapedName = "&lt;script&gt;document.title='PWNED';document.body.appendChild("
                    + "document.createElement('pwned'))";
            assertTrue(dom.contains("data-loaded=\"true\""), "the console's script ran and loaded:\n" + dom);
            assertTrue(dom.contains("<a href=\"#\">" + escapedName + "</a>"), "the path bar shows the name as "
                    + "text:\n" + dom);
            assertTrue(dom.contains("<code id=\"node-path\">/app/" + escapedName + "</code>"),
                    "the node panel too:\n" + dom);
            assertTrue(dom.contains("<code id=\"recipes-path\">/app/" + escapedName + "</code>"),
                    "and the recipes heading:\n" + dom);
            assertTrue(dom.contains("child of a hostile node"), "its children are listed:\n" + dom);
            assertTrue(dom.contains("&lt;/script&gt;&lt;script&gt;document.title='PWNED'"),
                    "its data is shown as text:\n" + dom);
            assertEquals(1, count(dom, "<script"), "the only script element is the console's own:\n" + dom);
            assertFalse(dom.contains("<img src=\"x\""), "no element was made from a node name:\n" + dom);
            assertFalse(dom.contains("<pwned>"), "no script ran:\n" + dom);
            assertTrue(dom.contains("<title>zkr console</title>"), "the title was not changed:\n" + dom);
        }
    }

    /**
     * The page refreshes itself: after its first refresh was answered and shown, a node is created, /app's data set
     * and a second session opened; the same page load shows them all (the relay makes the changes just before it
     * forwards the second refresh's first request, so the first refresh cannot have seen them).
     */
    @Test
    void consoleRefreshesLiveWithoutAReload() throws Exception {
        assumeChromium();
        List<ZkClient> later = new ArrayList<>();
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).adminPort(0).build());
             ZkClient c = ZkClient.connect(server.connectString(), Duration.ofSeconds(10));
             ConsoleRelay relay = new ConsoleRelay(server.adminPort(), () -> {
                 c.create("/app/arrived-later", utf8("made after the first refresh"), CreateMode.PERSISTENT);
                 c.setData("/app", utf8("changed"), -1);
                 later.add(ZkClient.connect(server.connectString(), Duration.ofSeconds(10)));
             })) {
            c.create("/app", utf8("original"), CreateMode.PERSISTENT);
            c.create("/app/first", utf8("there from the start"), CreateMode.PERSISTENT);

            String dom = dumpDom(relay.url() + "#/app");

            assertTrue(relay.refreshes() >= 2, "the page refreshed itself: " + relay.refreshes());
            assertEquals(null, relay.hookFailure(), "the changes were made");
            assertEquals(1, later.size(), "a second session was opened");
            String second = "0x" + Long.toHexString(later.get(0).sessionId());
            String firstChildren = relay.firstAnswer("/api/children");
            String firstSessions = relay.firstAnswer("/api/sessions");
            assertTrue(firstChildren != null && firstChildren.contains("there from the start")
                    && !firstChildren.contains("arrived-later"), "the first refresh read the tree before the change:\n"
                    + firstChildren);
            assertTrue(firstSessions != null && firstSessions.contains("\"count\":1") && !firstSessions.contains(second),
                    "and one session:\n" + firstSessions);
            assertTrue(dom.contains("arrived-later") && dom.contains("made after the first refresh"),
                    "the page shows the node created after it loaded:\n" + dom);
            assertTrue(dom.contains(statRow("version", 1)) && dom.contains("<pre id=\"node-data\">changed</pre>"),
                    "and /app's new data and version:\n" + dom);
            assertTrue(dom.contains("(2, 2 connected here)") && dom.contains(second),
                    "and the second session:\n" + dom);
        } finally {
            for (ZkClient z : later) {
                z.close();
            }
        }
    }

    /**
     * A node the viewer may not READ (the issue's /vault, made with {@code auth::cdrwa} by digest app:s3cret): the
     * console shows its name in the tree and "no permission" with a log-in button where its data would be, and never
     * its data. Through a relay that adds app's Basic credentials, as the console's login form makes it send them,
     * the same page shows the data.
     */
    @Test
    void aProtectedNodeShowsNoPermissionAndItsDataOnlyToItsOwner() throws Exception {
        assumeChromium();
        String secret = "the-vault-secret-4711";
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).adminPort(0).build());
             ZkClient app = ZkClient.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).authInfo("digest", utf8("app:s3cret")).build()) {
            app.create("/vault", utf8(secret), CreateMode.PERSISTENT, dev.zkr.client.Acls.CREATOR_ALL);
            app.create("/vault/inner", utf8(secret + "-inner"), CreateMode.PERSISTENT,
                    dev.zkr.client.Acls.CREATOR_ALL);
            app.create("/open", utf8("public data"), CreateMode.PERSISTENT);

            String root = dumpDom(server.adminUrl() + "#/");
            assertTrue(root.contains("data-loaded=\"true\""), "the console's script ran and loaded:\n" + root);
            assertTrue(root.contains(">vault</a>"), "the tree lists /vault by name:\n" + root);
            assertTrue(root.contains("public data"), "and /open's data:\n" + root);
            assertTrue(root.contains("<span class=\"no-permission\">no permission <button type=\"button\">log in"
                    + "</button></span>"), "/vault's data cell says no permission and offers to log in:\n" + root);
            assertFalse(root.contains(secret), "the secret is nowhere on the page:\n" + root);

            String vault = dumpDom(server.adminUrl() + "#/vault");
            assertTrue(vault.contains("<code id=\"node-path\">/vault</code>"), "the node panel is /vault:\n" + vault);
            assertTrue(vault.contains("<pre id=\"node-data\"><span class=\"no-permission\">no permission"),
                    "its data panel says no permission:\n" + vault);
            assertFalse(vault.contains(secret) || vault.contains("inner"), "neither data nor children:\n" + vault);

            String basic = "Basic " + java.util.Base64.getEncoder().encodeToString(utf8("app:s3cret"));
            try (ConsoleRelay relay = new ConsoleRelay(server.adminPort(), () -> { }, basic)) {
                String owner = dumpDom(relay.url() + "#/vault");
                assertTrue(owner.contains("<pre id=\"node-data\">" + secret + "</pre>"), "the owner sees the data:\n"
                        + owner);
                assertTrue(owner.contains(secret + "-inner"), "and the children's:\n" + owner);
                assertFalse(owner.contains("no permission"), owner);
            }
        }
    }

    /** Runs headless chromium on {@code url} and returns the DOM it dumps after the page settled. */
    private String dumpDom(String url) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--virtual-time-budget=5000", "--dump-dom", url));
        Path out = dir.resolve("dom.html");
        Path err = dir.resolve("chromium.log");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 90 s: " + Files.readString(err));
        }
        assertEquals(0, p.exitValue(), "chromium failed: " + Files.readString(err));
        return Files.readString(out);
    }
}
