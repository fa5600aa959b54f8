package dev.zkr.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/** Test helpers: temp data dirs and polling with a deadline; public for the tests of zk-server's other packages. */
public final class ServerFixture {

    private ServerFixture() {
    }

    public static ServerConfig.Builder config(Path dir) {
        return ServerConfig.builder(dir).port(0).tickTime(Duration.ofMillis(100))
                .minSessionTimeout(Duration.ofMillis(300)).maxSessionTimeout(Duration.ofSeconds(30));
    }

    /** Polls until the condition holds; fails after the timeout. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    /** The server's client port (its connections' budgets are package-private to {@code dev.zkr.server.port}). */
    public static dev.zkr.server.port.NettyServer clientPort(ZkServer server) {
        return server.connections();
    }

    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
