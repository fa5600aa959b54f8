package dev.zkr.recipes;

import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.node.NodeKeeper;
import dev.zkr.recipes.node.TtlToucher;

import java.time.Duration;
import java.util.Optional;

/**
 * A node that the recipe keeps present with its data (Curator's {@code PersistentNode}): typically ephemeral, made
 * again after session expiry or deletion by others, with the latest data set (also one set while disconnected),
 * never two copies. Build one with {@link Recipes#persistentNode(String)}.
 *
 * <p>An ephemeral node of the same name owned by another session is left alone: the recipe waits for it to go.
 * {@link #close()} deletes the node, and only it (never a parent), and only if it is ours.
 */
public final class PersistentNode implements AutoCloseable {

    private final NodeKeeper keeper;
    /** The TTL variant's renewals ({@link PersistentNodeBuilder#ttl}), else null. */
    private final TtlToucher toucher;
    private final String path;

    PersistentNode(NodeKeeper keeper, TtlToucher toucher, String path) {
        this.keeper = keeper;
        this.toucher = toucher;
        this.path = path;
    }

    /** Sets the node's data: written now if connected, else once the connection is back (or on the next create). */
    public void setData(byte[] data) {
        keeper.setData(data);
    }

    /** The data the node is kept with. */
    public byte[] data() {
        return keeper.data();
    }

    /** The node's path once created (sequential modes: with the protected prefix and the sequence number). */
    public Optional<String> actualPath() {
        return keeper.actualPath();
    }

    /** True if, as last seen, the node is there, ours, with the data set last. */
    public boolean isPresent() {
        return keeper.isPresent();
    }

    /**
     * Waits at most {@code timeout} until the node is there with the data set last; false on timeout or if
     * closed. Honours interrupts ({@link dev.zkr.client.ZkException.Interrupted}, flag kept).
     */
    public boolean await(Duration timeout) {
        return keeper.await(Deadline.after(timeout));
    }

    /** The path the node was asked for. */
    public String path() {
        return path;
    }

    /** Stops keeping the node and deletes it (see the class comment). Idempotent. */
    @Override
    public void close() {
        if (toucher != null) {
            toucher.close(); // the child first: the container can only be deleted empty
        }
        keeper.close();
    }

    @Override
    public String toString() {
        return "PersistentNode[" + path + ", actual=" + keeper.actualPath().orElse("-") + ", present="
                + keeper.isPresent() + "]";
    }
}
