package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One participant process of a property: a client that recipes use, and that can {@link #crash()} like its process
 * would. After the crash nothing its recipes ask reaches the server (every call fails with {@code Closed}, so their
 * threads end), and the backend ends the session through the expiry path: the others see what a dead process leaves.
 */
final class Participant {

    private static final Set<String> ALWAYS_ALLOWED = Set.of("sessionId", "sessionTimeout", "state", "maxDataSize", "exactlyOnceWrites",
            "watchedPaths", "close", "toString", "hashCode", "equals",
            "addConnectionStateListener", "removeConnectionStateListener");

    private final String name;
    private final ZkClient real;
    private final ZkClient client;
    private final AtomicLong suspensions = new AtomicLong();
    private volatile boolean dead;

    Participant(String name, ZkClient real) {
        this.name = name;
        this.real = real;
        this.client = (ZkClient) Proxy.newProxyInstance(ZkClient.class.getClassLoader(),
                new Class<?>[] {ZkClient.class}, (proxy, method, args) -> {
                    if (dead && !ALWAYS_ALLOWED.contains(method.getName())) {
                        ZkException gone = new ZkException.Closed(null, name + " crashed");
                        if (CompletableFuture.class.isAssignableFrom(method.getReturnType())) {
                            return CompletableFuture.failedFuture(gone);
                        }
                        throw gone;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        real.addConnectionStateListener((c, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                suspensions.incrementAndGet();
            }
        });
    }

    /** The client to hand to recipes. */
    ZkClient client() {
        return client;
    }

    String name() {
        return name;
    }

    long sessionId() {
        return real.sessionId();
    }

    boolean isDead() {
        return dead;
    }

    boolean isConnected() {
        return real.state().isConnected();
    }

    /** How often the connection was suspended so far: a mark for {@link #reconnectedSince}. */
    long suspensions() {
        return suspensions.get();
    }

    /**
     * True once the client lost its connection after the mark and is connected again (a client's state alone may
     * still say "connected" before it noticed that the server went away).
     */
    boolean reconnectedSince(long mark) {
        return suspensions.get() > mark && real.state().isConnected();
    }

    /** The process dies: its recipes are cut off from the server, then its session is expired. */
    void crash(RecipeBackend backend) {
        dead = true;
        backend.crash(real);
    }

    @Override
    public String toString() {
        return name + (dead ? "(dead)" : "");
    }
}
