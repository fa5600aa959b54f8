package dev.zkr.server;

import dev.zkr.auth.AuthAttempts;
import dev.zkr.auth.AuthProvider;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guessing credentials costs the guesser time, not the server or its other clients: after a few refusals a
 * connection's attempts are refused without being evaluated until its wait is over (so a guess during the wait is
 * never tried, even a right one), the failures are logged at a bounded rate, a connection cannot collect ids
 * without end, and other sessions are served throughout. Real server, real sockets.
 */
@Timeout(120)
class BruteForceAuthTest {

    /** A scheme that refuses everything and counts how often it was asked. */
    private static final class CountingRefuser implements AuthProvider {
        final AtomicInteger evaluated = new AtomicInteger();

        @Override
        public String scheme() {
            return "guess";
        }

        @Override
        public List<Id> authenticate(ClientInfo client, byte[] auth) {
            evaluated.incrementAndGet();
            return List.of();
        }

        @Override
        public boolean matches(String id, String aclExpr) {
            return id.equals(aclExpr);
        }
    }

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private ZkClient client(ZkServer server) {
        ZkClient c = ZkClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(10))
                .build();
        open.add(c);
        return c;
    }

    @Test
    void guessesAreEvaluatedAtABoundedRateLoggedAtABoundedRateAndOthersAreServedMeanwhile() throws Exception {
        CountingRefuser refuser = new CountingRefuser();
        ZkServer server = ZkServer.start(ServerFixture.config(dir).authProvider(refuser).build());
        open.add(server);
        ZkClient attacker = client(server);
        ZkClient victim = client(server);
        victim.create("/victim", new byte[0], CreateMode.PERSISTENT, Acls.OPEN_UNSAFE);
        int guesses = 2_000;
        List<String> answers = new ArrayList<>();
        long started;
        long took;
        String log;
        try (StderrCapture err = new StderrCapture()) {
            started = System.nanoTime();
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> { // the victim, meanwhile
                int n = 0;
                for (int i = 0; i < 300; i++) {
                    victim.create("/victim/n-", new byte[10], CreateMode.PERSISTENT_SEQUENTIAL);
                    n += victim.getData("/victim").data().length == 0 ? 1 : 0;
                }
                return n;
            });
            for (int i = 0; i < guesses; i++) {
                ZkException.AuthFailed e = assertThrows(ZkException.AuthFailed.class,
                        () -> attacker.addAuthInfo("guess", ("try-" + System.nanoTime()).getBytes()));
                answers.add(String.valueOf(e.getMessage()));
            }
            took = System.nanoTime() - started;
            assertEquals(300, served.get());
            log = err.text();
        }
        int evaluated = refuser.evaluated.get();
        // the free refusals, then one per wait that ran out while the guesser knocked: waits of 250, 500, 1000 ms,
        // then 2 s each, so at most 3 + 3 + took / 2 s (+1 for the attempt at the end of a wait)
        long bound = AuthAttempts.FREE_FAILURES + 3 + took / (AuthAttempts.MAX_WAIT_MS * 1_000_000L) + 1;
        assertTrue(evaluated >= AuthAttempts.FREE_FAILURES && evaluated <= bound,
                evaluated + " of " + guesses + " guesses evaluated in " + took / 1_000_000 + " ms (at most " + bound
                        + ")");
        assertEquals(guesses - evaluated, answers.stream().filter(a -> a.contains("not evaluated")).count());
        long lines = log.lines().filter(l -> l.contains("authentication failed")).count();
        assertTrue(lines >= 1 && lines <= ProblemLog.LINES_PER_WINDOW * (1 + took / (ProblemLog.WINDOW_SECONDS
                * 1_000_000_000L)), lines + " failure lines logged for " + evaluated + " refusals");
        assertTrue(log.lines().noneMatch(l -> l.contains("try-")), "no secret in the log");
    }

    @Test
    void aRightGuessDuringTheWaitIsNotTriedAndWorksOnceTheWaitIsOver() throws Exception {
        ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
        open.add(server);
        ZkClient admin = client(server);
        admin.addAuthInfo("digest", "alice:secret".getBytes(StandardCharsets.UTF_8));
        admin.create("/alice", "hers".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        ZkClient guesser = client(server);
        // refusals until the connection is told to wait (digest bytes without ':' are refused)
        String waiting = null;
        for (int i = 0; i < 50 && waiting == null; i++) {
            ZkException.AuthFailed e = assertThrows(ZkException.AuthFailed.class,
                    () -> guesser.addAuthInfo("digest", "no-colon".getBytes(StandardCharsets.UTF_8)));
            waiting = e.getMessage().contains("not evaluated") ? e.getMessage() : null;
        }
        assertTrue(waiting != null, "the connection is made to wait");
        // the right password, sent while the connection waits, is refused untried; once the wait is over it works
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        boolean refusedUntried = false;
        while (true) {
            try {
                guesser.addAuthInfo("digest", "alice:secret".getBytes(StandardCharsets.UTF_8));
                break;
            } catch (ZkException.AuthFailed e) {
                assertTrue(e.getMessage().contains("not evaluated"), e.getMessage());
                refusedUntried = true;
                assertTrue(System.nanoTime() < deadline, "the wait never ended");
            }
        }
        assertTrue(refusedUntried || waiting.contains("retry in"), "a guess inside the wait was refused untried");
        assertArrayEquals("hers".getBytes(StandardCharsets.UTF_8), guesser.getData("/alice").data());
    }

    @Test
    void aConnectionHoldsAtMostSixteenIdsSoWrongPasswordsCannotPileUp() {
        ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
        open.add(server);
        ZkClient c = client(server);
        int accepted = 0;
        ZkException.AuthFailed refused = null;
        for (int i = 0; i < 40 && refused == null; i++) {
            try {
                // a wrong password is not refused (as in ZooKeeper): it is one more id
                c.addAuthInfo("digest", ("alice:guess-" + i).getBytes(StandardCharsets.UTF_8));
                accepted++;
            } catch (ZkException.AuthFailed e) {
                refused = e;
            }
        }
        assertTrue(refused != null && refused.getMessage().contains("at most " + AuthAttempts.MAX_IDS),
                String.valueOf(refused));
        assertEquals(AuthAttempts.MAX_IDS - 1, accepted, "16 ids with the connection's ip id");
        // an id the connection holds already is no new id: accepted again
        c.addAuthInfo("digest", "alice:guess-0".getBytes(StandardCharsets.UTF_8));
        c.create("/still-served", new byte[0], CreateMode.PERSISTENT);
    }
}
