package dev.zkr.testkit;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin endpoint of a 3-server in-JVM ensemble: /health is 200 on every member once it serves and 503 on a member
 * cut off from the others; /status names the role, the leader and the epoch; the leader's /metrics show its
 * followers' lag and the proposals' commit latency.
 */
class AdminEnsembleTest {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(TestEnsemble e, int i, String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(e.server(i).adminUrl() + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        TestEnsembleTest.await(what, condition);
    }

    /** The value of the sample line {@code metric{labels}} (labels "" for none), or NaN if absent. */
    private static double sample(String metrics, String metric, String labels) {
        String prefix = labels.isEmpty() ? metric + " " : metric + "{" + labels + "} ";
        for (String line : metrics.split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(prefix.length()).trim().split(" ")[0]);
            }
        }
        return Double.NaN;
    }

    @Test
    void healthStatusAndLeaderMetricsOfAThreeServerEnsemble() {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).electionTimeout(Duration.ofMillis(500))
                .configure(b -> b.adminPort(0)).start()) {
            for (int i = 0; i < 3; i++) {
                int s = i;
                await("server " + (s + 1) + " healthy", () -> get(e, s, "health").statusCode() == 200);
            }
            int leader = e.leader();
            int leaderId = leader + 1;
            for (int i = 0; i < 3; i++) {
                int s = i;
                await("server " + (s + 1) + " knows the leader", () -> get(e, s, "status").body()
                        .contains("\"leaderId\":" + leaderId));
                String status = get(e, i, "status").body();
                assertTrue(status.contains("\"mode\":\"ensemble\""), status);
                assertTrue(status.contains("\"serverId\":" + (i + 1)), status);
                assertTrue(status.contains(i == leader ? "\"role\":\"leader\"" : "\"role\":\"follower\""), status);
                assertTrue(status.contains("\"epoch\":"), status);
                assertTrue(status.matches(".*\"version\":\"[0-9][^\"]*\".*"), status);
            }
            try (ZkClient c = e.newClient()) {
                for (int i = 0; i < 10; i++) {
                    c.create("/m" + i, new byte[] {(byte) i}, CreateMode.PERSISTENT);
                }
            }
            String m = get(e, leader, "metrics").body();
            assertTrue(sample(m, "zkr_proposal_commit_seconds_count", "") >= 10, m);
            assertEquals(1, sample(m, "zkr_role", "role=\"leader\""), m);
            assertEquals(leaderId, sample(m, "zkr_leader_id", ""), m);
            long epoch = (long) sample(m, "zkr_epoch", "");
            assertTrue(get(e, leader, "status").body().contains("\"epoch\":" + epoch + ","), "epoch " + epoch);
            long lastZxid = (long) sample(m, "zkr_last_zxid", "");
            assertEquals(epoch, lastZxid >>> 32, "the last zxid is of this epoch: " + m);
            assertTrue((lastZxid & 0xffffffffL) >= 10, "the last zxid counts the 10 creates at least: " + m);
            assertTrue(sample(m, "zkr_leader_changes_total", "") >= 1, "the leader saw itself become leader: " + m);
            int follower = (leader + 1) % 3;
            String lagLabel = "follower=\"" + (follower + 1) + "\"";
            assertTrue(sample(m, "zkr_follower_lag_txns", lagLabel) >= 0, "the leader reports each follower's lag:\n"
                    + m);
            await("the follower caught up (lag 0)", () -> sample(get(e, leader, "metrics").body(),
                    "zkr_follower_lag_txns", lagLabel) == 0);
            String fm = get(e, follower, "metrics").body();
            assertEquals(1, sample(fm, "zkr_role", "role=\"follower\""), fm);
            assertTrue(Double.isNaN(sample(fm, "zkr_follower_lag_txns", lagLabel)), "only the leader reports lag");
            assertEquals(11, sample(fm, "zkr_znodes", ""), "the follower applied the writes: " + fm);
            String ensemble = get(e, follower, "api/ensemble").body();
            assertTrue(ensemble.contains("\"id\":" + leaderId + ",") && ensemble.contains("\"role\":\"leader\""),
                    ensemble);

            // a member cut off from the others stops serving: /health says so, and says so again when healed
            e.isolate(follower);
            await("the isolated server reports not serving", () -> get(e, follower, "health").statusCode() == 503);
            assertTrue(get(e, follower, "health").body().contains("not serving"));
            e.heal();
            await("the healed server serves again", () -> get(e, follower, "health").statusCode() == 200);
            assertTrue(sample(get(e, follower, "metrics").body(), "zkr_elections_total", "") >= 1,
                    "the isolated server campaigned");
        }
    }

    @Test
    void statusAndEnsembleShowTheMembershipInForce() {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).configure(b -> b.adminPort(0)).start()) {
            int observer = e.addObserver();
            String status = get(e, observer, "status").body();
            assertTrue(status.contains("\"ensembleId\":\"" + Long.toHexString(e.server(0).ensembleId()) + "\""),
                    status);
            assertTrue(status.contains("{\"id\":1,\"role\":\"voter\",\"host\":\"127.0.0.1\""), status);
            assertTrue(status.contains("{\"id\":" + (observer + 1) + ",\"role\":\"observer\""), status);
            String ensemble = get(e, e.leader(), "api/ensemble").body();
            assertTrue(ensemble.contains("\"id\":" + (observer + 1) + ",") && ensemble.contains(
                    "\"membership\":\"observer\""), ensemble);
            assertEquals(4, ensemble.split("\"membership\":").length - 1, ensemble);
        }
    }
}
