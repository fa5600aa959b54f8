package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
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
    /** Node data that is a script if parsed as HTML. */
    static final String HOSTILE_DATA = "<script>document.title='PWNED';document.body.appendChild("
            + "document.createElement('pwned'))</script><b id=injected>bold</b>";

    @TempDir
    Path dir;
    @TempDir
    Path profile;

    @Test
    void consoleShowsTheTreeAndEscapesHostileNamesAndData() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "no headless browser: " + CHROMIUM + " is not installed "
                + "(apt-get install chromium); the console's browser test is skipped");
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).adminPort(0).build());
             ZkClient c = ZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            c.create("/app", HOSTILE_DATA.getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
            c.create("/app/" + HOSTILE_NAME, "x".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
            c.create("/app/plain-node", "hello console".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
            c.create("/app/locks", new byte[0], CreateMode.PERSISTENT);
            String holder = c.create("/app/locks/lock-", "worker-1".getBytes(StandardCharsets.UTF_8),
                    CreateMode.EPHEMERAL_SEQUENTIAL);
            c.create("/app/locks/lock-", "worker-2".getBytes(StandardCharsets.UTF_8),
                    CreateMode.EPHEMERAL_SEQUENTIAL);

            String dom = dumpDom(server.adminUrl() + "#/app");

            assertTrue(dom.contains("data-loaded=\"true\""), "the console's script ran and loaded:\n" + dom);
            assertTrue(dom.contains("plain-node"), "the tree shows the children of /app:\n" + dom);
            assertTrue(dom.contains("hello console"), "with data previews:\n" + dom);
            assertTrue(dom.contains("&lt;img src=x onerror=\"document.title='PWNED'\"&gt;"),
                    "the hostile name is shown as text:\n" + dom);
            assertTrue(dom.contains("&lt;script&gt;document.title='PWNED'"), "hostile data is shown as text:\n" + dom);
            assertFalse(dom.contains("<img src=\"x\""), "no element was made from a node name:\n" + dom);
            assertFalse(dom.contains("<pwned>") || dom.contains("<pwned></pwned>"), "no script ran:\n" + dom);
            assertFalse(dom.contains("id=\"injected\""), "no element was made from node data:\n" + dom);
            assertTrue(dom.contains("<title>zkr console</title>"), "the title was not changed:\n" + dom);
            assertTrue(dom.contains(holder.substring("/app/locks/".length())), "the lock holder is shown");
            assertTrue(dom.contains("worker-2"), "and its waiter:\n" + dom);
            assertTrue(dom.contains("(this server)"), "the ensemble panel shows this server:\n" + dom);
            assertTrue(dom.contains("0x" + Long.toHexString(c.sessionId())), "the sessions panel shows the session");
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
