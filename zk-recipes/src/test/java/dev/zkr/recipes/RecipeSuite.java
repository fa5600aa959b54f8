package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Base of the recipe suites: one backend (server) per test class, fresh clients and a fresh root path per test,
 * and helpers (polling with a deadline, watch-leak checks). Subclasses provide the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RecipeSuite {

    protected static final Duration WAIT = Duration.ofSeconds(20);

    protected RecipeBackend backend;
    protected String root;
    private final List<ZkClient> clients = new ArrayList<>();
    protected ExecutorService pool;

    /** The backend the suite runs on (started once per class). */
    protected abstract RecipeBackend createBackend();

    @BeforeAll
    void startBackend() {
        backend = createBackend();
    }

    @AfterAll
    void stopBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    @BeforeEach
    void freshRoot(TestInfo info) {
        root = "/t-" + info.getTestMethod().map(m -> m.getName()).orElse("x") + "-" + System.nanoTime();
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        synchronized (clients) {
            for (ZkClient c : clients) {
                try {
                    c.close();
                } catch (RuntimeException e) {
                    // already closed
                }
            }
            clients.clear();
        }
    }

    /** A new client, closed after the test. */
    protected ZkClient client() {
        return client(Duration.ofSeconds(10));
    }

    protected ZkClient client(Duration sessionTimeout) {
        ZkClient c = backend.newClient(sessionTimeout);
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    protected String path(String name) {
        return root + "/" + name;
    }

    /** Polls the condition until true or the deadline; fails with the message otherwise. */
    protected static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(10); // polling with a deadline, not synchronisation
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /** Asserts the client holds no watch (recipes must remove theirs on close). */
    protected static void assertNoWatches(ZkClient c) {
        eventually("no watches left, have " + c.watchedPaths(), () -> c.watchedPaths().isEmpty());
        assertEquals(List.of(), List.copyOf(c.watchedPaths()));
    }

    /**
     * Children of a path, empty if it does not exist, after a {@code sync}: on an ensemble the observer may be
     * connected to a server that has not applied the write just made through another one (sequential consistency),
     * and a test that counts nodes must count the latest.
     */
    protected static List<String> children(ZkClient c, String path) {
        try {
            c.sync(path);
            return c.getChildren(path);
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }
}
