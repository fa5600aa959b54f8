package dev.zkr.recipes.queue;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The simple queue's claim: {@code multi(delete item, setData consumer-node := item name)}, so each item goes to
 * exactly one consumer, at most once, and a claim whose response was lost is decided by reading this consumer's own
 * node ({@code consumer-<uuid>}, ephemeral, made again after a new session).
 */
final class DeleteClaimCore extends QueueCore {

    static final String CONSUMER = "consumer-";

    private final String consumerPath;
    private volatile long consumerSession;

    DeleteClaimCore(ZkClient client, String path, ItemOrder order) {
        super(client, path, order);
        this.consumerPath = ZkPaths.join(path, CONSUMER + UUID.randomUUID());
    }

    @Override
    Claimed claim(String name, Deadline deadline) {
        String itemPath = ZkPaths.join(path, name);
        byte[] marker = name.getBytes(StandardCharsets.UTF_8);
        while (true) {
            NodeData d;
            try {
                ensureConsumerNode(deadline);
                d = read(deadline, () -> client.getDataAsync(itemPath, null));
            } catch (ZkException.NoNode gone) {
                return null;
            }
            if (!Retries.awaitConnected(client, deadline)) {
                throw new DeadlinePassed(); // not sent: nothing to decide
            }
            try {
                client.multi(List.of(Op.delete(itemPath, -1), Op.setData(consumerPath, marker, -1)));
                return new Claimed(name, d.data(), null);
            } catch (ZkException.NoNode e) {
                if (failedAt(e, 0)) {
                    contended = true; // another consumer's take claimed it between this take's read and claim
                    return null;
                }
                consumerSession = 0; // our consumer node is gone (new session): make it again
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                // the claim may have taken the item: decide it even past the caller's deadline, or the item is
                // lost with the exception. Bounded: within the session timeout the client is back, or its session
                // (and the consumer node with it) is gone and the claim is undecidable anyway.
                Deadline decide = decisionDeadline(deadline);
                try {
                    if (!Retries.recover(client, decide)) {
                        throw new Undecided(e);
                    }
                    NodeData mine = Retries.retrying(client, decide, () -> client.getData(consumerPath));
                    if (Arrays.equals(mine.data(), marker)) {
                        return new Claimed(name, d.data(), null); // our claim was applied
                    }
                } catch (ZkException.NoNode sessionGone) {
                    consumerSession = 0; // undecidable: the item is either still there (retried) or lost
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired x) {
                    throw new Undecided(x);
                }
                // not applied: if the item is still there, try again; getData tells
            } catch (ZkException.SessionExpired e) {
                consumerSession = 0;
                Retries.awaitConnected(client, deadline);
            }
        }
    }

    /** The caller's deadline, or twice the session timeout from now if that is later. */
    private Deadline decisionDeadline(Deadline deadline) {
        Duration bound = client.sessionTimeout().multipliedBy(2);
        return deadline.remainingNanos() >= bound.toNanos() ? deadline : Deadline.after(bound); // close cannot cut it
    }

    private static boolean failedAt(ZkException e, int index) {
        List<OpResult> results = e.multiResults();
        if (results == null || results.size() <= index) {
            return index == 0;
        }
        return results.get(index) instanceof OpResult.ErrorResult err && err.code() != ZkException.Code.OK
                && err.code() != ZkException.Code.RUNTIME_INCONSISTENCY;
    }

    private void ensureConsumerNode(Deadline deadline) {
        long session = client.sessionId();
        if (consumerSession == session) {
            return;
        }
        Retries.retrying(client, deadline, () -> {
            try {
                within(client.createAsync(consumerPath, new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER),
                        deadline);
            } catch (ZkException.NodeExists e) {
                // ours, from a create whose response was lost (or that a take before this one gave up on)
            }
        });
        consumerSession = session;
    }

    @Override
    void removeConsumer() {
        Cleanup.deleteQuietly(client, consumerPath, consumerSession);
    }
}
