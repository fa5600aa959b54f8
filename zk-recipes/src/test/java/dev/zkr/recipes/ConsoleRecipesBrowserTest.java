package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server's web console (zk-server's {@code dev/zkr/server/admin/console}) in a real headless browser on a 3-server
 * ensemble, showing what the real recipes wrote: the leader's console lists the three members with their roles, and
 * under {@code /app} a fair leader election with two participants (leader and the one in line), a double barrier
 * both members entered, a group with two members and a queue with three items, each with its participants' sessions
 * and data. Here rather than in zk-server because zk-server's tests cannot use zk-recipes (zk-recipes' tests use
 * zk-testkit, which uses zk-server: a cycle). Skipped when {@code /usr/bin/chromium} is not installed.
 */
class ConsoleRecipesBrowserTest {

    static final Path CHROMIUM = Path.of(System.getProperty("zkr.chromium", "/usr/bin/chromium"));

    @TempDir
    Path dir;
    @TempDir
    Path profile;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(ZkClient c) {
        return "0x" + Long.toHexString(c.sessionId());
    }

    @Test
    void consoleOfTheLeaderShowsTheMembersRolesAndTheRecipes() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "no headless browser: " + CHROMIUM + " is not installed "
                + "(apt-get install chromium); the console's browser test is skipped");
        List<AutoCloseable> open = new ArrayList<>();
        try (TestEnsemble e = TestEnsemble.builder().servers(3).electionTimeout(Duration.ofMillis(500))
                .configure(b -> b.adminPort(0)).start()) {
            int leader = e.leader();
            ZkClient[] c = new ZkClient[4];
            for (int i = 0; i < c.length; i++) {
                c[i] = e.newClient(b -> b.connectString(e.connectString(leader)));
                open.add(c[i]);
            }
            c[0].create("/app", new byte[0], dev.zkr.client.CreateMode.PERSISTENT);

            LeaderLatch first = Recipes.using(c[0]).leaderLatch("/app/election").id("alpha").start();
            open.add(first);
            assertTrue(first.await(Duration.ofSeconds(30)), "the first participant leads");
            LeaderLatch second = Recipes.using(c[1]).leaderLatch("/app/election").id("beta").start();
            open.add(second);
            eventually("both participants in the election", () -> first.participants().size() == 2);

            DoubleBarrier b1 = Recipes.using(c[0]).doubleBarrier("/app/barrier").parties(2).memberId("m1").build();
            DoubleBarrier b2 = Recipes.using(c[1]).doubleBarrier("/app/barrier").parties(2).memberId("m2").build();
            open.add(b1);
            open.add(b2);
            CompletableFuture<Boolean> entering = CompletableFuture.supplyAsync(() -> b1.enter(Duration.ofSeconds(30)));
            assertTrue(b2.enter(Duration.ofSeconds(30)), "the second member entered");
            assertTrue(entering.get(30, TimeUnit.SECONDS), "the first member entered");

            open.add(Recipes.using(c[2]).group("/app/group").memberId("g1").data(utf8("host-a")).join());
            open.add(Recipes.using(c[3]).group("/app/group").memberId("g2").data(utf8("host-b")).join());

            DistributedQueue<byte[]> queue = Recipes.using(c[3]).queue("/app/queue").build();
            open.add(queue);
            for (int i = 1; i <= 3; i++) {
                queue.offer(utf8("job-" + i));
            }

            String dom = dumpDom(e.server(leader).adminUrl() + "#/app");

            assertTrue(dom.contains("data-loaded=\"true\""), "the console's script ran and loaded:\n" + dom);
            for (int i = 0; i < 3; i++) {
                String role = i == leader ? "<td class=\"leader\">leader</td>" : "<td>follower</td>";
                Pattern member = Pattern.compile(Pattern.quote("<tr><td>" + (i + 1) + (i == leader ? " (this server)"
                        : "") + "</td><td>") + "[^<]*" + Pattern.quote("</td><td>" + e.port(i) + "</td>" + role));
                assertTrue(member.matcher(dom).find(), "member " + (i + 1) + " is listed as "
                        + (i == leader ? "the leader (this server)" : "a follower") + ":\n" + dom);
            }

            String election = recipe(dom, "leader", "/app/election");
            assertTrue(election.contains("mode fair"), election);
            assertTrue(section(election, "leader:", "participants").contains(hex(c[0]))
                    && section(election, "leader:", "participants").contains("alpha"),
                    "the leader is the first participant (session and id):\n" + election);
            assertTrue(section(election, "participants (in order):", null).contains(hex(c[1]))
                    && section(election, "participants (in order):", null).contains("beta"),
                    "the second waits in line:\n" + election);

            String barrier = recipe(dom, "barrier", "/app/barrier");
            assertTrue(barrier.contains("entered 2") && barrier.contains("ready true"), barrier);
            assertTrue(barrier.contains("<span>m1</span> · session " + hex(c[0]))
                    && barrier.contains("<span>m2</span> · session " + hex(c[1])), "both members entered:\n" + barrier);

            String group = recipe(dom, "group", "/app/group");
            assertTrue(group.contains("members 2"), group);
            assertTrue(group.contains("<span>g1</span> · session " + hex(c[2]) + " · host-a")
                    && group.contains("<span>g2</span> · session " + hex(c[3]) + " · host-b"),
                    "the group's members with their data:\n" + group);

            String items = recipe(dom, "queue", "/app/queue");
            // zkr's client offers with a plain create (exactly-once writes): no offer ledger, so no producer count
            assertTrue(items.contains("claimed 0") && items.contains("depth 3") && !items.contains("producers"),
                    "three items, none claimed, no ledger:\n" + items);
            int j1 = items.indexOf("· job-1 ");
            int j2 = items.indexOf("· job-2 ");
            int j3 = items.indexOf("· job-3 ");
            assertTrue(j1 > 0 && j1 < j2 && j2 < j3, "the items, oldest first:\n" + items);

            assertFalse(dom.contains("/app/queue-offers"), "the queue's offer ledgers are not a recipe of their own:\n"
                    + dom);
            assertEquals(4, dom.split("<div class=\"recipe\">", -1).length - 1, "four recipes under /app:\n" + dom);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            LockSupport.parkNanos(10_000_000); // polling the election's participants
        }
    }

    /** The recipe panel's entry of {@code kind} at {@code path}, up to the next entry. */
    private static String recipe(String dom, String kind, String path) {
        String head = "<div class=\"recipe\"><span class=\"kind\">" + kind + "</span> <a href=\"#\">" + path + "</a>";
        int at = dom.indexOf(head);
        assertTrue(at >= 0, "a " + kind + " at " + path + " is shown:\n" + dom);
        int next = dom.indexOf("<div class=\"recipe\">", at + head.length());
        int end = next >= 0 ? next : dom.indexOf("</section>", at);
        return dom.substring(at, end);
    }

    /** The part of {@code s} from {@code from} up to {@code to} (or the end). */
    private static String section(String s, String from, String to) {
        int at = s.indexOf(from);
        assertTrue(at >= 0, "'" + from + "' in:\n" + s);
        int end = to == null ? -1 : s.indexOf(to, at + from.length());
        return s.substring(at, end >= 0 ? end : s.length());
    }

    /** Runs headless chromium on {@code url} and returns the DOM it dumps after the page settled. */
    private String dumpDom(String url) throws IOException, InterruptedException {
        List<String> cmd = List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--virtual-time-budget=3000", "--dump-dom", url);
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
