package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;

/** Configures a {@link LeaderSelector}; obtain one from {@link Recipes#leaderSelector(String)}. */
public final class LeaderSelectorBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private String id = UUID.randomUUID().toString();
    private boolean fair = true;
    private boolean autoRequeue = true;
    private Duration suspensionBound = Duration.ZERO;
    private TakeLeadership callback;

    LeaderSelectorBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** This participant's id, as reported by {@link LeaderSelector#leaderId()} (default: a random UUID). */
    public LeaderSelectorBuilder id(String id) {
        this.id = Objects.requireNonNull(id, "id");
        return this;
    }

    /** Fair election (default): leadership passes in arrival order; each waiter watches only its predecessor. */
    public LeaderSelectorBuilder fair() {
        this.fair = true;
        return this;
    }

    /** Unfair election: everyone races for one node and every loser watches it (a herd on each change). */
    public LeaderSelectorBuilder unfair() {
        this.fair = false;
        return this;
    }

    /**
     * Whether the selector competes again after each term (default true). When false it competes once, and once
     * more per {@link LeaderSelector#requeue()}.
     */
    public LeaderSelectorBuilder autoRequeue(boolean requeue) {
        this.autoRequeue = requeue;
        return this;
    }

    /**
     * How long a suspended connection may last before the term is lost (default zero: lost at SUSPENDED, as
     * Curator's {@code LeaderSelectorListenerAdapter} does). Capped at a sixth of the session timeout.
     */
    public LeaderSelectorBuilder suspensionBound(Duration bound) {
        if (bound.isNegative()) {
            throw new IllegalArgumentException("negative bound " + bound);
        }
        this.suspensionBound = bound;
        return this;
    }

    /** The work to do while leading (required). */
    public LeaderSelectorBuilder takeLeadership(TakeLeadership callback) {
        this.callback = Objects.requireNonNull(callback, "callback");
        return this;
    }

    /** Creates the selector and starts competing; the callback runs on a thread of the recipes' executor. */
    public LeaderSelector start() {
        if (callback == null) {
            throw new IllegalStateException("no takeLeadership callback");
        }
        Election election = fair ? new FairElection(client, path, id) : new UnfairElection(client, path, id);
        LeaderSelector selector = new LeaderSelector(client, path, id, election, autoRequeue, suspensionBound,
                executor, callback);
        selector.start();
        return selector;
    }
}
