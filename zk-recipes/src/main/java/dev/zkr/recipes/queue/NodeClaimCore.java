package dev.zkr.recipes.queue;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The acknowledged queue's claim: an ephemeral {@code claim-<item>} node; {@link #ack} deletes item and claim
 * together, {@link #release} (or the consumer's death) deletes the claim and the item is delivered again. A claim
 * create whose outcome is unknown when the take gives up (response lost and the connection not back in time,
 * interrupt) is "unsettled": the consumer's next take tries that item again (and finds its own claim by the
 * ephemeral owner), and once connected the claim is released if no take picked it up first, so it never blocks
 * other consumers until the session ends.
 */
final class NodeClaimCore extends QueueCore {

    private final Set<Claimed> outstanding = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Items whose claim create may have been applied without this consumer knowing. */
    private final Set<String> unsettled = java.util.concurrent.ConcurrentHashMap.newKeySet();

    NodeClaimCore(ZkClient client, String path, ItemOrder order) {
        super(client, path, order);
    }

    /** An item claimed for a cancelled asynchronous take is released: it is delivered again. */
    @Override
    void giveBack(Claimed c) {
        release(c);
    }

    /**
     * Removes an item only if no consumer holds it, in one request: creating its claim (fails if held), deleting
     * the item and deleting that claim again.
     */
    @Override
    List<Op> removeOps(String name) {
        String claimPath = ZkPaths.join(path, CLAIM + name);
        return List.of(Op.create(claimPath, new byte[0], CreateMode.EPHEMERAL),
                Op.delete(ZkPaths.join(path, name), -1), Op.delete(claimPath, -1));
    }

    @Override
    Set<String> possiblyOwnClaims() {
        return unsettled;
    }

    @Override
    Claimed claim(String name, Deadline deadline) {
        String itemPath = ZkPaths.join(path, name);
        String claimPath = ZkPaths.join(path, CLAIM + name);
        // true while a create of this claim may have been applied unseen: an own claim found is then this take's
        boolean uncertain = unsettled.remove(name);
        OwnedNode claim = null;
        try {
            while (claim == null) {
                try {
                    // no parent creation: the item's parent exists, and one request keeps the order with the
                    // exists() that settles an abandoned create
                    CompletableFuture<Created> create = client.createAsync(claimPath, new byte[0], CreateMode.EPHEMERAL);
                    Stat stat;
                    try {
                        stat = within(create, deadline).stat();
                    } catch (ZkException.NodeExists | ZkException.NoNode | ZkException.SessionExpired e) {
                        throw e;
                    } catch (RuntimeException e) {
                        uncertain = true; // response lost, or no longer waited for: the create may be applied
                        throw e;
                    }
                    claim = new OwnedNode(claimPath, CLAIM + name, stat.czxid(), stat.ephemeralOwner());
                } catch (ZkException.NoNode e) {
                    return null; // the queue node is gone, and the item with it
                } catch (ZkException.NodeExists e) {
                    Stat stat = read(deadline, () -> client.existsAsync(claimPath, null));
                    if (stat == null || stat.ephemeralOwner() != client.sessionId()) {
                        uncertain = false; // a create of ours came first, or was never applied (requests in order)
                        // a race only if this take saw the item unclaimed; a claim seen first through a listing of
                        // an earlier take may be held since then by a take that overlapped nothing of this one
                        contended = stat != null && listedThisTake || contended;
                        return null; // claimed by another consumer (or just released: seen at the next listing)
                    }
                    if (!uncertain) {
                        return null; // ours, but not this take's: held, or being released
                    }
                    claim = new OwnedNode(claimPath, CLAIM + name, stat.czxid(), stat.ephemeralOwner());
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Retries.recover(client, deadline)) {
                        throw e;
                    }
                } catch (ZkException.SessionExpired e) {
                    uncertain = false; // the session's ephemerals are gone with it
                    if (!Retries.awaitConnected(client, deadline)) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException e) {
            if (uncertain) {
                unsettle(name, claimPath);
            }
            throw e;
        }
        try {
            NodeData d = read(deadline, () -> client.getDataAsync(itemPath, null));
            Claimed c = new Claimed(name, d.data(), claim);
            outstanding.add(c);
            return c;
        } catch (ZkException.NoNode gone) {
            Cleanup.deleteQuietly(client, claimPath, claim.owner()); // acknowledged by someone before us
            return null;
        } catch (RuntimeException e) {
            Cleanup.deleteQuietly(client, claimPath, claim.owner());
            throw e;
        }
    }

    /**
     * A claim create of this session whose outcome is unknown: the next take of this consumer may pick the item up
     * (it is not filtered out); otherwise, once connected, the claim is looked up and released if it is ours.
     */
    private void unsettle(String name, String claimPath) {
        long owner = client.sessionId();
        unsettled.add(name);
        settle(name, claimPath, owner, 20);
    }

    private void settle(String name, String claimPath, long owner, int attempts) {
        Retries.whenConnected(client).thenCompose(x -> {
            if (!unsettled.contains(name)) {
                return CompletableFuture.completedFuture(null); // a take picked it up
            }
            if (client.sessionId() != owner) {
                unsettled.remove(name); // the session and its ephemerals are gone
                return CompletableFuture.completedFuture(null);
            }
            return client.existsAsync(claimPath, null).thenCompose(stat -> {
                boolean ours = stat != null && stat.ephemeralOwner() == owner;
                if (!unsettled.remove(name) || !ours) {
                    return CompletableFuture.completedFuture(null); // taken over by a take, or nothing to release
                }
                return client.deleteAsync(claimPath, stat.version()).exceptionallyCompose(err -> {
                    unsettled.add(name); // not known to be deleted: look again
                    return CompletableFuture.failedFuture(err);
                });
            });
        }).whenComplete((v, err) -> {
            if (err == null) {
                return;
            }
            RuntimeException cause = ClientSupport.unwrap(err);
            if ((cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout)
                    && attempts > 1) {
                settle(name, claimPath, owner, attempts - 1);
            } else {
                unsettled.remove(name); // Closed, SessionExpired, NoNode: nothing of ours is left
            }
        });
    }

    /** Deletes the item and its claim together; false if the claim is no longer ours. */
    boolean ack(Claimed c) {
        try {
            return ackOnce(c);
        } catch (ZkException.Closed e) {
            outstanding.remove(c);
            return false; // the claim went with the closed client's session
        }
    }

    private boolean ackOnce(Claimed c) {
        String itemPath = ZkPaths.join(path, c.name());
        boolean earlierAttemptUnknown = false;
        while (true) {
            if (client.sessionId() != c.claim().owner()) {
                outstanding.remove(c);
                return false;
            }
            try {
                client.multi(List.of(Op.delete(c.claim().path(), -1), Op.delete(itemPath, -1)));
                outstanding.remove(c);
                return true;
            } catch (ZkException.NoNode e) {
                outstanding.remove(c);
                // after a lost response, NoNode may be our own earlier multi, applied after we looked: the claim is
                // an ephemeral of this session that only this ack deletes, so if it is gone while the session
                // lives, the item went with it
                return earlierAttemptUnknown && claimGoneWithSessionAlive(c);
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                earlierAttemptUnknown = true;
                if (claimGoneWithSessionAlive(c)) {
                    outstanding.remove(c);
                    return true; // our multi was applied
                }
                if (client.sessionId() != c.claim().owner()) {
                    outstanding.remove(c);
                    return false;
                }
            } catch (ZkException.SessionExpired e) {
                outstanding.remove(c);
                return false;
            }
        }
    }

    /**
     * Whether the claim node is gone while its session is still this client's: read after a {@code sync}, so the
     * server answering has applied everything the leader had committed when it was asked (a reconnect may land on a
     * server that had not yet applied our lost multi).
     */
    private boolean claimGoneWithSessionAlive(Claimed c) {
        Stat claim = Retries.retrying(client, Deadline.NONE, () -> {
            client.sync(c.claim().path());
            return client.exists(c.claim().path());
        });
        return claim == null && client.sessionId() == c.claim().owner();
    }

    void release(Claimed c) {
        outstanding.remove(c);
        Cleanup.deleteQuietly(client, c.claim().path(), c.claim().owner());
        synchronized (cache) {
            cache.add(0, c.name()); // this consumer sees it again first
        }
    }

    @Override
    void releaseHeld() {
        for (Claimed c : List.copyOf(outstanding)) {
            release(c);
        }
    }
}
