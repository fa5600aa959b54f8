package dev.zkr.recipes.counter;

import dev.zkr.client.Children;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.DistributedCounter;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.internal.Signal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The freeze gate of a {@link DistributedCounter}: {@code C/freeze}, a persistent node that exists only while a
 * compare-and-set holds it, with exactly one ephemeral child {@code h-<random>} naming the holder. Both are created
 * in one multi and deleted in one multi, so a gate without a child is an orphan (its holder's session ended) and
 * anyone may delete it; deleting only a childless gate ({@code NotEmpty} otherwise) never removes a live one.
 *
 * <p>Increments test the gate with {@code create(C/freeze) + delete(C/freeze)} inside their own multi, which fails
 * with {@code NodeExists} while a holder has it. A holder's final write deletes its own child: if the holder's
 * session ended in the meantime (and a new session of the same client sends the write) that delete fails and the
 * write is not applied, so a write never goes through without the gate.
 *
 * <p>Internal, not API (public only for {@code DistributedCounter}).
 */
public final class CounterGate {

    public static final String NAME = "freeze";
    public static final String HOLDER_PREFIX = "h-";

    /** A safety net only: the wait for a release re-checks after this long (a watch is lost with its session). */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(1);
    private static final byte[] EMPTY = new byte[0];

    /** A held gate: the holder child and the session that created it. */
    public record Held(String holder, long session) {
    }

    private final ZkClient client;
    private final String gate;

    public CounterGate(ZkClient client, String counterPath) {
        this.client = client;
        this.gate = ZkPaths.join(counterPath, NAME);
    }

    public String path() {
        return gate;
    }

    /** The two ops of the increment test: they fail (NodeExists on the first) while the gate is held. */
    public List<Op> testOps() {
        return List.of(Op.create(gate, EMPTY, CreateMode.PERSISTENT), Op.delete(gate, -1));
    }

    /** The ops that release a held gate; part of the holder's final multi. */
    public List<Op> releaseOps(Held held) {
        return List.of(Op.delete(held.holder(), -1), Op.delete(gate, -1));
    }

    /**
     * Takes the gate, waiting while someone else holds it. Fails with {@link ZkException.NoNode} if the counter
     * node does not exist.
     */
    public Held acquire() {
        while (true) {
            String holder = ZkPaths.join(gate, HOLDER_PREFIX + randomHex());
            long session = client.sessionId();
            try {
                client.multi(List.of(Op.create(gate, EMPTY, CreateMode.PERSISTENT),
                        Op.create(holder, EMPTY, CreateMode.EPHEMERAL)));
                return new Held(holder, session);
            } catch (ZkException.NodeExists e) {
                awaitRelease();
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                // the response was lost: we hold the gate iff our holder child exists in our (same) session
                Stat s = Retries.retrying(client, Deadline.NONE, () -> client.exists(holder));
                if (s != null && s.ephemeralOwner() == session && client.sessionId() == session) {
                    return new Held(holder, session);
                }
            } catch (ZkException.SessionExpired e) {
                if (!Retries.awaitConnected(client, Deadline.NONE)) {
                    throw e;
                }
            }
        }
    }

    public static String randomHex() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /** Releases a held gate (no-op if it is gone already: released before a lost response, or its session ended). */
    public void release(Held held) {
        try {
            Retries.retrying(client, Deadline.NONE, () -> client.multi(releaseOps(held)));
        } catch (ZkException.NoNode e) {
            // released already, or our session ended (the orphan is removed by whoever waits next)
        }
    }

    /** Releases without throwing, for clean-up after a failure. */
    public void releaseQuietly(Held held) {
        if (client.sessionId() != held.session()) {
            return;
        }
        Cleanup.awaitQuietly(client.multiAsync(releaseOps(held)).exceptionally(e -> null));
    }

    /** True if the gate is held by this holder, in its session. */
    public boolean stillHeld(Held held) {
        Stat s = Retries.retrying(client, Deadline.NONE, () -> client.exists(held.holder()));
        return s != null && s.ephemeralOwner() == held.session() && client.sessionId() == held.session();
    }

    /**
     * Waits until the gate looks free: returns at once if it does not exist; removes it if it is an orphan;
     * otherwise waits for a child watch (the holder's release or session end) — at most {@link #WAIT_SLICE}.
     */
    public void awaitRelease() {
        Signal changed = new Signal();
        Watcher w = e -> changed.fire();
        Children children;
        try {
            children = Retries.retrying(client, Deadline.NONE, () -> client.getChildrenWithStat(gate, w));
        } catch (ZkException.NoNode e) {
            return; // free (no watch is left on a missing node)
        }
        if (children.names().isEmpty()) {
            try {
                Retries.retrying(client, Deadline.NONE, () -> client.delete(gate, -1)); // fires our watch
            } catch (ZkException.NoNode | ZkException.NotEmpty e) {
                // someone else removed the orphan (and maybe a new holder took the gate)
            }
        } else {
            changed.await(Deadline.after(WAIT_SLICE));
        }
        if (!changed.isFired()) {
            Cleanup.removeWatchQuietly(client, gate, w, WatcherType.CHILDREN);
        }
    }
}
