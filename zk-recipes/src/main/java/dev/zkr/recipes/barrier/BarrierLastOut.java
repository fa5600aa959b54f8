package dev.zkr.recipes.barrier;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The last one out of a {@link DoubleBarrier}: deletes {@code ready} and its node (if present) together;
 * {@code ready} first, so the others' watches on it fire before their watches on our node.
 */
final class BarrierLastOut {

    private BarrierLastOut() {
    }

    /** The last-out multi: {@code ready}, then our node. */
    static List<Op> ops(BarrierMember member) {
        return List.of(Op.delete(member.readyPath, -1), Op.delete(member.nodePath, -1));
    }

    /** Leaves last. {@code sent}: the last-out multi if already sent. */
    static void leave(BarrierMember member, boolean present, Deadline deadline,
                      CompletableFuture<List<OpResult>> sent) {
        ZkClient client = member.client;
        long owner = member.session;
        member.session = 0;
        if (present && owner == client.sessionId()) {
            try {
                if (sent == null || !settled(client, sent, deadline)) {
                    Retries.retrying(client, deadline, () -> client.multi(ops(member)));
                }
                return;
            } catch (ZkException.NoNode e) {
                // ready (or our node) is gone already: delete what is left below
                member.delete(owner, deadline);
            }
        }
        try {
            client.delete(member.readyPath, -1);
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            // already gone, or someone else will
        }
    }

    /** Awaits a request already sent; false if its answer was lost (the connection is back: send it again). */
    private static boolean settled(ZkClient client, CompletableFuture<?> sent, Deadline deadline) {
        try {
            ClientSupport.await(sent);
            return true;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            if (!Retries.recover(client, deadline)) {
                throw e;
            }
            return false;
        }
    }
}
