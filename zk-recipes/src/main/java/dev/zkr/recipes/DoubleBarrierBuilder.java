package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.barrier.Barrier;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;

/** Configures a {@link DoubleBarrier}; obtain one from {@link Recipes#doubleBarrier(String)}. */
public final class DoubleBarrierBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private int parties;
    private String memberId = UUID.randomUUID().toString();

    DoubleBarrierBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** How many members must enter before anyone proceeds (required, at least 1). */
    public DoubleBarrierBuilder parties(int parties) {
        if (parties < 1) {
            throw new IllegalArgumentException("parties must be at least 1: " + parties);
        }
        this.parties = parties;
        return this;
    }

    /** This member's id, unique among the parties (a node name; default: a random UUID). */
    public DoubleBarrierBuilder memberId(String memberId) {
        Objects.requireNonNull(memberId, "memberId");
        if (memberId.equals(Barrier.READY) || !ZkPaths.isValid("/" + memberId) || memberId.contains("/")) {
            throw new IllegalArgumentException("invalid member id: " + memberId);
        }
        this.memberId = memberId;
        return this;
    }

    public DoubleBarrier build() {
        if (parties < 1) {
            throw new IllegalStateException("parties(n) is required");
        }
        return new DoubleBarrier(client, path, parties, memberId, executor);
    }
}
