package dev.zkr.recipes.queue;

import dev.zkr.client.ClientSupport;
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
import dev.zkr.recipes.internal.LostWrites;
import dev.zkr.recipes.internal.Retries;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Exactly-once offers of one producer (one queue object). Each offer is one {@code multi}: the item
 * {@code <queue>/item-<uuid>-<seq>} is created together with a write of the offer's UUID to this producer's ledger
 * node {@code <queue>-offers/<ledger-uuid>} (ephemeral, outside the queue's children): created by the producer's
 * first offer of a session, then {@code setData} at the version the previous offer left. So the ledger records the
 * last applied offer even after a consumer took and deleted its item, and its version fences a request that is
 * still on its way: an offer that was not applied when the producer looked, and is applied later, fails then
 * (BadVersion, or NodeExists for the ledger's create), so a retry never makes a second item.
 *
 * <p>After a lost response the producer waits for the connection, {@code sync}s and reads its ledger: its UUID
 * there means applied; the ledger as the last offer left it means not applied (yet), and the offer is sent again
 * under the same fence. If the ledger is gone (the session expired) it looks for the item by its UUID (after a
 * {@code sync}); not found, the offer may have been applied and consumed, or never applied: it does not offer
 * again and throws {@link ZkException.ConnectionLoss} saying the item may or may not be queued.
 *
 * <p>Offers of one queue object are serialized (the ledger records one offer at a time).
 *
 * <p>On a client with exactly-once writes ({@link ZkClient#exactlyOnceWrites()}, zkr's) none of this: an offer is
 * a plain create of the item, whose answer is its real outcome while the session lives, so there is no ledger
 * and offers are not serialized. Only a request timeout shorter than an outage, or the session lost while the
 * create was in flight, leave it open: then the item is looked for by its UUID (after a {@code sync}, which zkr's
 * client sends after the create it keeps), and if it is not queued the offer throws ConnectionLoss as above.
 */
final class ExactlyOnceOffer {

    /** The ledger parent is the queue's path with this suffix (a sibling of the queue node). */
    static final String LEDGERS = "-offers";
    static final String UNKNOWN = "offer: the response was lost, the producer's ledger cannot tell (its session"
            + " expired) and the item is not in the queue: it may or may not be queued (consumed already, or never"
            + " applied); not offered again";
    static final String UNKNOWN_ONCE = "offer: the request timed out, or the session was lost while it was in"
            + " flight, and the item is not in the queue: it may or may not be queued (consumed already, or never"
            + " applied); not offered again";

    private final ZkClient client;
    private final String queuePath;
    private final String ledgerParent;
    private final ReentrantLock lock = new ReentrantLock();
    /** This session's ledger node; null until an offer of the session creates it. Under the lock. */
    private String ledgerPath;
    /** The session that owns {@link #ledgerPath}. Under the lock. */
    private long ledgerSession;
    /** The ledger's version after the last applied offer; -1 while the ledger is not created. Under the lock. */
    private int ledgerVersion = -1;

    ExactlyOnceOffer(ZkClient client, String queuePath) {
        this.client = client;
        this.queuePath = queuePath;
        this.ledgerParent = ledgerParent(queuePath);
    }

    /** Where the ledgers of the queue at {@code queuePath} live. */
    static String ledgerParent(String queuePath) {
        return queuePath + LEDGERS;
    }

    /**
     * Enqueues the item exactly once, or throws (then it was not applied, unless the exception says unknown). A
     * non-empty {@code key} goes into the name ({@code item-<uuid>-<key>-<seq>}, see {@link ItemOrder}).
     */
    void offer(byte[] data, String key) {
        if (client.exactlyOnceWrites()) {
            offerOnce(data, itemPrefix(UUID.randomUUID().toString(), key));
            return;
        }
        try {
            lock.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(queuePath, "interrupted while waiting to offer");
        }
        try {
            offerLocked(data, key);
        } finally {
            lock.unlock();
        }
    }

    private void offerLocked(byte[] data, String key) {
        String uuid = UUID.randomUUID().toString();
        byte[] mark = uuid.getBytes(StandardCharsets.UTF_8);
        String itemPrefix = itemPrefix(uuid, key);
        while (true) {
            long session = client.sessionId();
            if (ledgerPath == null || ledgerSession != session) {
                newLedger(session);
                ensureParents(); // once per ledger; a parent reaped later is made again on NoNode
            }
            Op ledgerOp = ledgerVersion < 0 ? Op.create(ledgerPath, mark, CreateMode.EPHEMERAL)
                    : Op.setData(ledgerPath, mark, ledgerVersion);
            try {
                List<OpResult> results = client.multi(List.of(ledgerOp,
                        Op.create(ZkPaths.join(queuePath, itemPrefix), data, CreateMode.PERSISTENT_SEQUENTIAL)));
                ledgerVersion = results.get(0) instanceof OpResult.SetDataResult s ? s.stat().version() : 0;
                return;
            } catch (ZkException.NoNode e) {
                // not applied: the queue node or the ledger's parent (containers) is missing, or the ledger is gone
                ensureParents();
                if (ledgerVersion >= 0 && Retries.retrying(client, Deadline.NONE,
                        () -> client.exists(ledgerPath)) == null) {
                    ledgerPath = null; // gone without the session noticing: start a new one (the old name is dead)
                }
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired
                     | ZkException.BadVersion | ZkException.NodeExists e) {
                // response lost, or (BadVersion, NodeExists) a fenced retry: an earlier send of it was applied later
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                Outcome outcome = Retries.retrying(client, Deadline.NONE, () -> outcome(session, mark, itemPrefix));
                if (outcome == Outcome.APPLIED) {
                    return;
                }
                if (outcome == Outcome.UNKNOWN) {
                    throw new ZkException.ConnectionLoss(queuePath, UNKNOWN);
                }
            }
        }
    }

    private static String itemPrefix(String uuid, String key) {
        return QueueCore.ITEM + uuid + "-" + (key.isEmpty() ? "" : key + "-");
    }

    /** The offer on a client with exactly-once writes: a plain create of the item (no ledger). */
    private void offerOnce(byte[] data, String itemPrefix) {
        String item = ZkPaths.join(queuePath, itemPrefix);
        while (true) {
            try {
                client.create(item, data, CreateMode.PERSISTENT_SEQUENTIAL, Parents.CONTAINER);
                return;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                if (LostWrites.mayHaveApplied(client, e)) {
                    if (Retries.retrying(client, Deadline.NONE, () -> {
                        sync();
                        return itemQueued(itemPrefix);
                    })) {
                        return;
                    }
                    throw new ZkException.ConnectionLoss(queuePath, UNKNOWN_ONCE);
                }
                // never sent: offer again
            }
        }
    }

    /** A new ledger name for this session, created by the next offer's multi. */
    private void newLedger(long session) {
        ledgerPath = ZkPaths.join(ledgerParent, UUID.randomUUID().toString());
        ledgerSession = session;
        ledgerVersion = -1;
    }

    /** What became of an offer whose response was lost. */
    private enum Outcome {
        APPLIED,
        /** Not applied (yet): sent again under the same fence, a late arrival of the lost send fails. */
        NOT_APPLIED,
        /** The ledger cannot tell and the item is not queued: applied and consumed, or never applied. */
        UNKNOWN
    }

    /** After a lost response of an offer sent in {@code session}: what became of it. */
    private Outcome outcome(long session, byte[] mark, String itemPrefix) {
        sync();
        if (ledgerPath != null && client.sessionId() == session && ledgerSession == session) {
            NodeData ledger;
            try {
                ledger = client.getData(ledgerPath);
            } catch (ZkException.NoNode e) {
                ledger = null;
            }
            if (ledger != null && Arrays.equals(ledger.data(), mark)) {
                ledgerVersion = ledger.stat().version();
                return Outcome.APPLIED;
            }
            if (ledger == null ? ledgerVersion < 0 : ledger.stat().version() == ledgerVersion) {
                return Outcome.NOT_APPLIED; // as the last offer left it: a late arrival of this one fails the fence
            }
        }
        // the ledger went with the session (or changed under us): only the item itself can tell (a retry of this
        // look-up after a ConnectionLoss comes straight here)
        ledgerPath = null;
        return itemQueued(itemPrefix) ? Outcome.APPLIED : Outcome.UNKNOWN;
    }

    /** Whether an item with this prefix is in the queue (read after the sync). */
    private boolean itemQueued(String itemPrefix) {
        try {
            return client.getChildren(queuePath).stream().anyMatch(n -> n.startsWith(itemPrefix));
        } catch (ZkException.NoNode e) {
            return false;
        }
    }

    /** Reads after this see every write committed before it (also one the lost response was for). */
    private void sync() {
        try {
            client.sync(queuePath);
        } catch (ZkException.NoNode e) {
            // a server that checks the path: the queue node is gone, and reads are as fresh as the sync made them
        }
    }

    private void ensureParents() {
        Retries.retrying(client, Deadline.NONE, () -> {
            ClientSupport.await(ClientSupport.ensurePath(client, queuePath, CreateMode.CONTAINER));
            ClientSupport.await(ClientSupport.ensurePath(client, ledgerParent, CreateMode.CONTAINER));
        });
    }

    /** At close: removes this producer's ledger (quietly; it is ephemeral anyway). */
    void close() {
        if (!lock.tryLock()) {
            return; // an offer is in progress (perhaps waiting for the connection): the ledger goes with the session
        }
        try {
            if (ledgerPath != null && ledgerSession == client.sessionId()) {
                Cleanup.deleteQuietly(client, ledgerPath, ledgerSession);
            }
            ledgerPath = null;
        } finally {
            lock.unlock();
        }
    }
}
