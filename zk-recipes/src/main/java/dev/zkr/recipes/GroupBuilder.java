package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;

/** Configures a {@link GroupMembership}; obtain one from {@link Recipes#group(String)}. */
public final class GroupBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private String memberId = UUID.randomUUID().toString();
    private byte[] data = new byte[0];
    private boolean rejoinAfterLost = true;

    GroupBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** This member's id, unique in the group (a node name; default: a random UUID). */
    public GroupBuilder memberId(String memberId) {
        Objects.requireNonNull(memberId, "memberId");
        if (memberId.contains("/") || !ZkPaths.isValid("/" + memberId)) {
            throw new IllegalArgumentException("invalid member id: " + memberId);
        }
        this.memberId = memberId;
        return this;
    }

    /** The data other members see for this member (default empty; later changed by {@link GroupMembership#setData}). */
    public GroupBuilder data(byte[] data) {
        this.data = Objects.requireNonNull(data, "data").clone();
        return this;
    }

    /**
     * Whether to join again with a new session after this one expired (default true). Our node deleted by others
     * within the session is made again either way.
     */
    public GroupBuilder rejoinAfterLost(boolean rejoin) {
        this.rejoinAfterLost = rejoin;
        return this;
    }

    /**
     * Joins the group (creates the member node) and reads the first view before returning.
     *
     * @throws IllegalStateException if the member id is in use by another live session
     */
    public GroupMembership join() {
        GroupMembership g = new GroupMembership(client, path, memberId, data, rejoinAfterLost, executor);
        g.start();
        return g;
    }
}
