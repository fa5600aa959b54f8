package dev.zkr.server.round;

import dev.zkr.wire.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The contexts ({@code ctx}) this server hands out, and what waits for each answer: one counter, one map from ctx to
 * a typed waiter. A ctx names a read point asked of the replication ({@link Replication#readIndex}, answered through
 * {@link Replication.Stream#readState}) or of the leader ({@code SyncRead}, answered by {@code SyncReadReply}) — for a
 * client's sync, a follower's sync (on the leader) or the fence — or an attach check sent to the leader
 * ({@code Attach}, answered by {@code AttachReply}). Each ctx is used once; an answer nobody waits for any more is
 * dropped.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class ReadPoints {

    /** What waits for the answer to a ctx. */
    sealed interface Waiter permits ClientSync, PeerSync, FenceRead, AttachCheck {
    }

    /**
     * A client's sync on this server, asked for at {@code sentAt}: answered in its connection's order ({@code slot})
     * once its read point is known and applied here.
     */
    record ClientSync(ReplyQueue.Slot slot, Message.Request request, long sentAt) implements Waiter {
    }

    /** Leader: a follower's read point request ({@code SyncRead}), answered with {@code theirCtx}. */
    record PeerSync(int origin, long theirCtx) implements Waiter {
    }

    /** The read point the fenced connections wait for (the {@link Fence}'s). */
    record FenceRead() implements Waiter {
    }

    /** A held handshake's check with the leader that its session is live ({@code Attach}). */
    record AttachCheck(HeldHandshakes.Handshake handshake) implements Waiter {
    }

    static final FenceRead FENCE = new FenceRead();

    private final Map<Long, Waiter> waiters = new HashMap<>();
    private long nextCtx = 1;
    /** How many of the waiters are {@link ClientSync}s. */
    private int clientSyncs;

    /** Hands out the next ctx, for {@code w}. */
    long add(Waiter w) {
        long ctx = nextCtx++;
        waiters.put(ctx, w);
        if (w instanceof ClientSync) {
            clientSyncs++;
        }
        return ctx;
    }

    /** Takes the waiter of a read point's answer (not an attach check's), or null if none waits for it. */
    Waiter takeRead(long ctx) {
        Waiter w = waiters.get(ctx);
        if (w == null || w instanceof AttachCheck) {
            return null;
        }
        return remove(ctx);
    }

    /** Takes the attach check of {@code ctx}, or null if none waits for it. */
    AttachCheck takeAttachCheck(long ctx) {
        return waiters.get(ctx) instanceof AttachCheck ? (AttachCheck) remove(ctx) : null;
    }

    /** Forgets {@code ctx} if {@code w} waits for it (its answer, if it comes, is dropped). */
    void cancel(long ctx, Waiter w) {
        if (waiters.get(ctx) == w) {
            remove(ctx);
        }
    }

    /** Forgets the fence's read point {@code ctx} (its answer, if it comes, is dropped). */
    void cancelFence(long ctx) {
        if (waiters.get(ctx) instanceof FenceRead) {
            remove(ctx);
        }
    }

    boolean hasClientSyncs() {
        return clientSyncs > 0;
    }

    /** Takes the clients' syncs that match, in the map's order. */
    List<ClientSync> takeClientSyncs(Predicate<ClientSync> which) {
        List<ClientSync> taken = new ArrayList<>();
        for (Iterator<Waiter> it = waiters.values().iterator(); it.hasNext(); ) {
            if (it.next() instanceof ClientSync s && which.test(s)) {
                it.remove();
                clientSyncs--;
                taken.add(s);
            }
        }
        return taken;
    }

    /** Leader no more: the followers' read point requests are dropped (their senders fail them). */
    void dropPeerSyncs() {
        waiters.values().removeIf(w -> w instanceof PeerSync);
    }

    private Waiter remove(long ctx) {
        Waiter w = waiters.remove(ctx);
        if (w instanceof ClientSync) {
            clientSyncs--;
        }
        return w;
    }
}
