package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/** Configures a {@link LeaderLatch}; obtain one from {@link Recipes#leaderLatch(String)}. */
public final class LeaderLatchBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private String id = UUID.randomUUID().toString();
    private boolean fair = true;
    private boolean rejoinAfterLost = true;
    private Executor listenerExecutor;
    private Consumer<LeaderLatch> onElected;
    private Consumer<LeaderLatch> onRevoked;

    LeaderLatchBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** This participant's id, as reported by {@link LeaderLatch#leaderId()} (default: a random UUID). */
    public LeaderLatchBuilder id(String id) {
        this.id = Objects.requireNonNull(id, "id");
        return this;
    }

    /** Fair election (default): leadership passes in arrival order; each waiter watches only its predecessor. */
    public LeaderLatchBuilder fair() {
        this.fair = true;
        return this;
    }

    /** Unfair election: everyone races for one node and every loser watches it (a herd on each change). */
    public LeaderLatchBuilder unfair() {
        this.fair = false;
        return this;
    }

    /**
     * Whether the latch competes again after its session expired (default true). When false it stays out of
     * the election after LOST until closed.
     */
    public LeaderLatchBuilder rejoinAfterLost(boolean rejoin) {
        this.rejoinAfterLost = rejoin;
        return this;
    }

    /** Called when this participant becomes leader. */
    public LeaderLatchBuilder onElected(Consumer<LeaderLatch> listener) {
        this.onElected = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Called when leadership ends or becomes uncertain (connection suspended, session lost, close). */
    public LeaderLatchBuilder onRevoked(Consumer<LeaderLatch> listener) {
        this.onRevoked = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** The executor of the listener calls (default: the recipes' executor); calls are made one at a time. */
    public LeaderLatchBuilder listenerExecutor(Executor executor) {
        this.listenerExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /** Creates the latch and starts competing. */
    public LeaderLatch start() {
        Election election = fair ? new FairElection(client, path, id) : new UnfairElection(client, path, id);
        LeaderLatch latch = new LeaderLatch(client, path, id, election, rejoinAfterLost, executor,
                new SerialExecutor(listenerExecutor != null ? listenerExecutor : executor), onElected, onRevoked);
        latch.start();
        return latch;
    }
}
