package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The machinery of both queues. Items: {@code item-<uuid>-<seq>} (persistent-sequential, protected so a lost
 * create is found instead of duplicated). A consumer keeps a local cache of sorted item names and lists the
 * children again only when the cache runs dry; it sets a child watch only when the queue looks empty (no herd on
 * every offer while busy).
 *
 * <p>Simple mode claims by {@code multi(delete item, setData consumer-node := item name)}, so a claim whose
 * response was lost is decided by reading our own consumer node. Acknowledged mode claims by creating the
 * ephemeral {@code claim-<item>} node; {@code ack} deletes item and claim together.
 */
final class QueueCore {

    static final String ITEM = "item-";
    static final String CLAIM = "claim-";
    static final String CONSUMER = "consumer-";

    record Claimed(String name, byte[] data, OwnedNode claim) {
    }

    private final ZkClient client;
    private final String path;
    private final boolean acknowledged;
    /** How many of the first cached items a consumer that collided with another one picks from. */
    static final int SPREAD = 4;

    /** Cached item names in enqueue order; guarded by itself. */
    private final List<String> cache = new ArrayList<>();
    /**
     * Set when a claim lost a race to another consumer (the item was there when we read it): the consumers are
     * taking concurrently, so this one picks among the first {@link #SPREAD} items rather than always the head.
     * Cleared when a take ends empty-handed (its wait passed without an item). Used under the take lock only.
     */
    private boolean contended;
    private final ReentrantLock takeLock = new ReentrantLock();
    private final String consumerPath;
    private final Set<Claimed> outstanding = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile long consumerSession;
    private volatile Signal waiting;
    private volatile boolean closed;

    QueueCore(ZkClient client, String path, boolean acknowledged) {
        this.client = client;
        this.path = ZkPaths.validate(path);
        this.acknowledged = acknowledged;
        this.consumerPath = ZkPaths.join(path, CONSUMER + UUID.randomUUID());
    }

    String path() {
        return path;
    }

    // ---- offer --------------------------------------------------------------------------------------------------

    void offer(byte[] data) {
        checkOpen();
        String prefix = ITEM + UUID.randomUUID() + "-";
        String itemPath = ZkPaths.join(path, prefix);
        while (true) {
            try {
                client.create(itemPath, data, CreateMode.PERSISTENT_SEQUENTIAL, Parents.CONTAINER);
                return;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                if (!Connection.recover(client, Deadline.NONE)) {
                    throw e;
                }
                boolean found = Connection.retrying(client, Deadline.NONE, () -> {
                    try {
                        return client.getChildren(path).stream().anyMatch(n -> n.startsWith(prefix));
                    } catch (ZkException.NoNode none) {
                        return false;
                    }
                });
                if (found) {
                    return;
                }
            }
        }
    }

    int size() {
        try {
            return (int) client.getChildren(path).stream().filter(n -> n.startsWith(ITEM)).count();
        } catch (ZkException.NoNode e) {
            return 0;
        }
    }

    // ---- take ---------------------------------------------------------------------------------------------------

    /** Claims the next item; null if the deadline passed. */
    Claimed take(Deadline deadline) {
        checkOpen();
        try {
            if (deadline.isBounded()) {
                if (!takeLock.tryLock(deadline.remainingNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    return null;
                }
            } else {
                takeLock.lockInterruptibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(path, "interrupted while waiting for the queue");
        }
        try {
            while (true) {
                checkOpen();
                String name;
                while ((name = nextCandidate()) != null) {
                    Claimed c = claim(name, deadline);
                    if (c != null) {
                        return c;
                    }
                }
                if (deadline.expired() || !refill(deadline)) {
                    contended = false; // nothing to take for a whole wait: the next take goes for the head again
                    return null;
                }
            }
        } finally {
            takeLock.unlock();
        }
    }

    /**
     * The next cached item to try: the head, or, after a lost race with another consumer, one of the first
     * {@link #SPREAD} at random (so concurrent consumers stop colliding on the head); null if the cache is dry.
     */
    private String nextCandidate() {
        synchronized (cache) {
            if (cache.isEmpty()) {
                return null;
            }
            int i = contended ? java.util.concurrent.ThreadLocalRandom.current().nextInt(
                    Math.min(SPREAD, cache.size())) : 0;
            return cache.remove(i);
        }
    }

    private void cacheAll(List<String> items) {
        synchronized (cache) {
            cache.addAll(items);
        }
    }

    /** Fills the cache from a listing; if empty, waits for a change. False if the deadline passed. */
    private boolean refill(Deadline deadline) {
        List<String> items = Connection.retrying(client, deadline, () -> candidates(null));
        if (!items.isEmpty()) {
            cacheAll(items);
            return true;
        }
        Signal signal = new Signal();
        AtomicBoolean fired = new AtomicBoolean();
        Watcher watcher = e -> {
            fired.set(true);
            signal.fire();
        };
        waiting = signal;
        boolean childWatch = true;
        try {
            try {
                items = candidates(watcher);
            } catch (ZkException.NoNode e) {
                childWatch = false;
                if (Connection.watchedRead(client, client.existsAsync(path, watcher), path, watcher, WatcherType.DATA) != null) {
                    return true; // it came back: list again (the exists watch is removed below)
                }
                items = List.of();
            }
            if (!items.isEmpty()) {
                cacheAll(items);
                return true;
            }
            if (closed) {
                return true; // checkOpen throws
            }
            return signal.await(deadline) || !deadline.expired();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            return Connection.recover(client, deadline);
        } finally {
            waiting = null;
            if (!fired.get()) {
                Connection.removeWatchQuietly(client, path, watcher,
                        childWatch ? WatcherType.CHILDREN : WatcherType.DATA);
            }
        }
    }

    /** Unclaimed item names, in enqueue order; NoNode if the queue node does not exist (with a watcher). */
    private List<String> candidates(Watcher watcher) {
        List<String> names;
        if (watcher == null) {
            try {
                names = client.getChildren(path);
            } catch (ZkException.NoNode e) {
                return List.of();
            }
        } else {
            names = Connection.watchedRead(client, client.getChildrenAsync(path, watcher), path, watcher, WatcherType.CHILDREN).names();
        }
        Set<String> claimed = new HashSet<>();
        List<String> items = new ArrayList<>();
        for (String n : names) {
            if (n.startsWith(ITEM)) {
                items.add(n);
            } else if (n.startsWith(CLAIM)) {
                claimed.add(n.substring(CLAIM.length()));
            }
        }
        items.removeAll(claimed);
        return ProtectedNames.sortBySequence(items);
    }

    private Claimed claim(String name, Deadline deadline) {
        return acknowledged ? claimWithNode(name, deadline) : claimByDelete(name, deadline);
    }

    private Claimed claimByDelete(String name, Deadline deadline) {
        String itemPath = ZkPaths.join(path, name);
        byte[] marker = name.getBytes(StandardCharsets.UTF_8);
        while (true) {
            NodeData d;
            try {
                ensureConsumerNode(deadline);
                d = Connection.retrying(client, deadline, () -> client.getData(itemPath));
            } catch (ZkException.NoNode gone) {
                return null;
            }
            try {
                client.multi(List.of(Op.delete(itemPath, -1), Op.setData(consumerPath, marker, -1)));
                return new Claimed(name, d.data(), null);
            } catch (ZkException.NoNode e) {
                if (failedAt(e, 0)) {
                    contended = true; // another consumer took it between our read and our claim
                    return null;
                }
                consumerSession = 0; // our consumer node is gone (new session): make it again
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                // the claim may have taken the item: decide it even past the caller's deadline, or the item is
                // lost with the exception. Bounded: within the session timeout the client is back, or its session
                // (and the consumer node with it) is gone and the claim is undecidable anyway.
                Deadline decide = decisionDeadline(deadline);
                if (!Connection.recover(client, decide)) {
                    throw e;
                }
                try {
                    NodeData mine = Connection.retrying(client, decide, () -> client.getData(consumerPath));
                    if (Arrays.equals(mine.data(), marker)) {
                        return new Claimed(name, d.data(), null); // our claim was applied
                    }
                } catch (ZkException.NoNode sessionGone) {
                    consumerSession = 0; // undecidable: the item is either still there (retried) or lost
                }
                // not applied: if the item is still there, try again; getData tells
            } catch (ZkException.SessionExpired e) {
                consumerSession = 0;
                Connection.awaitConnected(client, deadline);
            }
        }
    }

    /** The caller's deadline, or twice the session timeout from now if that is later. */
    private Deadline decisionDeadline(Deadline deadline) {
        Duration bound = client.sessionTimeout().multipliedBy(2);
        return deadline.remainingNanos() >= bound.toNanos() ? deadline : Deadline.after(bound);
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
        Connection.retrying(client, deadline, () -> {
            try {
                client.create(consumerPath, new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER);
            } catch (ZkException.NodeExists e) {
                // ours, from a create whose response was lost
            }
        });
        consumerSession = session;
    }

    private Claimed claimWithNode(String name, Deadline deadline) {
        String itemPath = ZkPaths.join(path, name);
        String claimPath = ZkPaths.join(path, CLAIM + name);
        OwnedNode claim = null;
        while (claim == null) {
            try {
                Stat stat = client.createWithStat(claimPath, new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER)
                        .stat();
                claim = new OwnedNode(claimPath, CLAIM + name, stat.czxid(), stat.ephemeralOwner());
            } catch (ZkException.NodeExists e) {
                Stat stat = Connection.retrying(client, deadline, () -> client.exists(claimPath));
                if (stat == null || stat.ephemeralOwner() != client.sessionId()) {
                    contended = stat != null || contended;
                    return null; // claimed by another consumer (or just released: seen at the next listing)
                }
                claim = new OwnedNode(claimPath, CLAIM + name, stat.czxid(), stat.ephemeralOwner());
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                if (!Connection.recover(client, deadline)) {
                    throw e;
                }
            }
        }
        try {
            NodeData d = Connection.retrying(client, deadline, () -> client.getData(itemPath));
            Claimed c = new Claimed(name, d.data(), claim);
            outstanding.add(c);
            return c;
        } catch (ZkException.NoNode gone) {
            Connection.deleteQuietly(client, claimPath, claim.owner()); // acknowledged by someone before us
            return null;
        } catch (RuntimeException e) {
            Connection.deleteQuietly(client, claimPath, claim.owner());
            throw e;
        }
    }

    // ---- acknowledged mode ----------------------------------------------------------------------------------------

    /** Deletes the item and its claim together; false if the claim is no longer ours. */
    boolean ack(Claimed c) {
        String itemPath = ZkPaths.join(path, c.name());
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
                return false;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Connection.recover(client, Deadline.NONE)) {
                    throw e;
                }
                Stat claim = Connection.retrying(client, Deadline.NONE, () -> client.exists(c.claim().path()));
                if (claim == null) {
                    outstanding.remove(c);
                    // gone: our multi was applied, or our session expired (then ack is false above next loop)
                    return client.sessionId() == c.claim().owner();
                }
            } catch (ZkException.SessionExpired e) {
                outstanding.remove(c);
                return false;
            }
        }
    }

    void release(Claimed c) {
        outstanding.remove(c);
        Connection.deleteQuietly(client, c.claim().path(), c.claim().owner());
        synchronized (cache) {
            cache.add(0, c.name()); // this consumer sees it again first
        }
    }

    // ---- lifecycle ------------------------------------------------------------------------------------------------

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("queue " + path + " is closed");
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        Signal s = waiting;
        if (s != null) {
            s.fire();
        }
        for (Claimed c : List.copyOf(outstanding)) {
            release(c);
        }
        takeLock.lock(); // wait for a take in progress to clean up its watch
        try {
            Connection.deleteQuietly(client, consumerPath, consumerSession);
        } finally {
            takeLock.unlock();
        }
    }
}
