package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.counter.CounterGate;
import dev.zkr.recipes.counter.CounterState;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.LostWrites;
import dev.zkr.recipes.internal.Retries;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;

/**
 * A linearizable 64-bit counter whose increments do not conflict with each other. Every successful increment returns
 * a distinct value.
 *
 * <p>Layout under the counter path {@code C}: {@code C/value} holds {@code (base, c0, tag)} and the value is
 * {@code base + (creates - c0)}, where {@code creates} is the number of children ever created under {@code C/value}
 * (its next sequence number; one read gives data and Stat atomically, see {@link CounterState}). An increment by
 * {@code k} (1..{@value #MAX_FAST_DELTA}) is one multi: check {@code C/value}'s version (the cached base and c0
 * are current), test the freeze gate (see {@link CounterGate}), and create {@code k} ephemeral sequential children
 * {@code C/value/i-<random>-}; the last child's sequence number {@code s} gives the new value
 * {@code base + (s + 1 - c0)}. Concurrent increments all succeed. A child of an earlier increment is deleted in a
 * later increment's multi (deletes do not change {@code creates}). Everything else (decrements, larger deltas, CAS,
 * set) takes the gate, reads, and writes {@code (new value, c0 := creates, tag)} with a versioned setData in the same
 * multi that releases the gate.
 *
 * <p>If the connection drops while an update is in flight, the counter finds out whether it was applied (an
 * increment by its random child name, a write by its tag and its gate) and returns its result; if that cannot be
 * decided (the session ended meanwhile and others wrote since) it throws {@link ZkException.ConnectionLoss} and the
 * update may or may not have happened (zkr's client, whose writes are exactly once while the session lives: the
 * {@link ZkException.SessionExpired} that says the write's outcome is unknown). Once {@code C/value} has had 2^29 children (about 537 million increments),
 * increments take the gate path too: correct, but slower.
 */
public final class DistributedCounter {

    /** Largest delta applied by the non-conflicting increment (one child per unit). */
    static final int MAX_FAST_DELTA = 64;
    /** Above this many creates increments take the gate path (ZooKeeper reports cversion ~ 2 * creates, an int). */
    static final int FAST_CREATES_LIMIT = 1 << 29;
    static final String VALUE = "value";
    private static final String CHILD_PREFIX = "i-";
    /** At most this many earlier children are deleted by one increment. */
    private static final int MAX_DELETES = 64;
    private static final byte[] EMPTY = new byte[0];

    private record Leftover(String path, long session) {
    }

    private enum Outcome { APPLIED, NOT_APPLIED, STILL_HOLDING }

    private final ZkClient client;
    private final String path;
    private final String valuePath;
    private final CounterGate gate;
    private final AtomicReference<CounterState> cached = new AtomicReference<>(); // last read or written; may be stale
    private final ConcurrentLinkedQueue<Leftover> leftovers = new ConcurrentLinkedQueue<>();

    DistributedCounter(ZkClient client, String path) {
        if ("/".equals(path)) {
            throw new IllegalArgumentException("the counter needs a path below the root");
        }
        this.client = client;
        this.path = path;
        this.valuePath = ZkPaths.join(path, VALUE);
        this.gate = new CounterGate(client, path);
    }

    /** The current value (0 if the counter does not exist yet); linearizable: syncs before reading. */
    public long get() {
        Retries.retrying(client, Deadline.NONE, () -> client.sync(path));
        try {
            return readValueNode().value();
        } catch (ZkException.NoNode e) {
            return 0;
        }
    }

    public long incrementAndGet() {
        return addAndGet(1);
    }

    public long decrementAndGet() {
        return addAndGet(-1);
    }

    /** Adds delta atomically and returns the new value. */
    public long addAndGet(long delta) {
        if (delta >= 1 && delta <= MAX_FAST_DELTA) {
            return increment((int) delta);
        }
        if (delta == 0) {
            return get();
        }
        return update(current -> current + delta) + delta;
    }

    /** Sets the value to {@code update} if it is {@code expect}; true if it did. */
    public boolean compareAndSet(long expect, long update) {
        return update(current -> current == expect ? update : null) == expect;
    }

    /** Sets the value unconditionally. */
    public void set(long value) {
        update(current -> value);
    }

    public String path() {
        return path;
    }

    // ---- increments ---------------------------------------------------------------------------------------------

    private long increment(int k) {
        while (true) {
            CounterState s = state();
            if (s.creates() >= FAST_CREATES_LIMIT - k) {
                return update(current -> current + k) + k;
            }
            List<Leftover> old = takeLeftovers();
            String prefix = ZkPaths.join(valuePath, CHILD_PREFIX + CounterGate.randomHex() + "-");
            long session = client.sessionId();
            List<Op> ops = new ArrayList<>(3 + k + old.size());
            ops.add(Op.check(valuePath, s.version()));
            ops.addAll(gate.testOps());
            for (int i = 0; i < k; i++) {
                ops.add(Op.create(prefix, EMPTY, CreateMode.EPHEMERAL_SEQUENTIAL));
            }
            for (Leftover l : old) {
                ops.add(Op.delete(l.path(), -1));
            }
            int firstDelete = 3 + k;
            try {
                List<OpResult> results = client.multi(ops);
                List<String> created = new ArrayList<>(k);
                for (int i = 3; i < firstDelete; i++) {
                    created.add(((OpResult.CreateResult) results.get(i)).path());
                }
                return applied(s, created, session);
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    leftovers.addAll(old);
                    throw e;
                }
                List<String> mine = childrenWithPrefix(prefix);
                if (!mine.isEmpty()) {
                    return applied(s, mine, session); // it was applied (and deleted the old children)
                }
                if (client.sessionId() != session) {
                    throw e; // our children would have gone with the session: cannot tell
                }
                leftovers.addAll(old); // not applied
            } catch (ZkException.SessionExpired e) {
                if (LostWrites.mayHaveApplied(client, e)) {
                    leftovers.addAll(old);
                    throw e; // in flight when the session was lost: its children went with it, nothing can tell
                }
                // never sent
                if (!Retries.awaitConnected(client, Deadline.NONE)) {
                    throw e;
                }
            } catch (ZkException e) {
                int failed = failedOp(e);
                if (failed == 0 && e instanceof ZkException.BadVersion) {
                    cached.compareAndSet(s, null); // a write changed base/c0: read again
                } else if (failed == 0 && e instanceof ZkException.NoNode) {
                    cached.compareAndSet(s, null);
                } else if (failed == 1 && e instanceof ZkException.NodeExists) {
                    gate.awaitRelease();
                    cached.compareAndSet(s, null); // the holder has most likely written
                } else if (failed >= firstDelete && e instanceof ZkException.NoNode) {
                    old.remove(failed - firstDelete); // gone already (its session ended)
                } else {
                    leftovers.addAll(old);
                    throw e;
                }
                leftovers.addAll(old);
            }
        }
    }

    /** The result of an applied increment that created these children while {@code s} was current. */
    private long applied(CounterState s, List<String> created, long session) {
        int last = -1;
        for (String p : created) {
            last = Math.max(last, (int) ZkPaths.sequenceOf(p));
            leftovers.add(new Leftover(p, session));
        }
        int creates = last + 1;
        cached.accumulateAndGet(s, (now, was) -> now != null && now.version() == was.version()
                ? now.withCreates(creates) : now);
        return s.valueAfter(last);
    }

    private List<Leftover> takeLeftovers() {
        List<Leftover> out = new ArrayList<>();
        long session = client.sessionId();
        Leftover l;
        while (out.size() < MAX_DELETES && (l = leftovers.poll()) != null) {
            if (l.session() == session) {
                out.add(l); // children of an ended session are gone with it
            }
        }
        return out;
    }

    private List<String> childrenWithPrefix(String prefix) {
        String name = ZkPaths.name(prefix);
        List<String> mine = new ArrayList<>();
        // sync first: the look-up must not run on a server that does not show the lost multi yet
        for (String child : Retries.retrying(client, Deadline.NONE, () -> {
            client.sync(valuePath);
            return client.getChildren(valuePath);
        })) {
            if (child.startsWith(name)) {
                mine.add(ZkPaths.join(valuePath, child));
            }
        }
        return mine;
    }

    /** Index of the op a failed multi failed on, or -1 if not a multi failure. */
    private static int failedOp(ZkException e) {
        List<OpResult> results = e.multiResults();
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult r && r.code() != ZkException.Code.OK
                    && r.code() != ZkException.Code.RUNTIME_INCONSISTENCY) {
                return i;
            }
        }
        return -1;
    }

    // ---- writes under the gate ----------------------------------------------------------------------------------

    /**
     * Under the gate: reads the value, asks {@code next} for the new value (null: leave it) and writes it in the
     * multi that releases the gate. Returns the value that was read (the value just before the write).
     */
    private long update(LongFunction<Long> next) {
        while (true) {
            CounterGate.Held held = acquireGate();
            boolean holding = true;
            try {
                while (true) {
                    CounterState s;
                    try {
                        s = readValueNode();
                    } catch (ZkException.NoNode e) {
                        gate.release(held);
                        holding = false;
                        initialise();
                        break;
                    }
                    long current = s.value();
                    Long value = next.apply(current);
                    if (value == null) {
                        gate.release(held);
                        holding = false;
                        return current;
                    }
                    long tag = ThreadLocalRandom.current().nextLong();
                    CounterState written = new CounterState(value, s.creates(), tag, s.version() + 1, s.creates());
                    List<Op> ops = new ArrayList<>(3);
                    ops.add(Op.setData(valuePath, CounterState.encode(value, s.creates(), tag), s.version()));
                    ops.addAll(gate.releaseOps(held));
                    Outcome outcome;
                    try {
                        client.multi(ops);
                        outcome = Outcome.APPLIED;
                    } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                        outcome = resolveWrite(e, held, s, tag);
                    } catch (ZkException.SessionExpired e) {
                        // never sent (the gate went with the session), unless it was in flight (zkr's client)
                        outcome = LostWrites.mayHaveApplied(client, e) ? resolveWrite(e, held, s, tag)
                                : Outcome.NOT_APPLIED;
                    } catch (ZkException e) {
                        if (failedOp(e) < 0) {
                            throw e;
                        }
                        outcome = Outcome.NOT_APPLIED; // e.g. our holder child is gone: the gate's session ended
                    }
                    if (outcome == Outcome.APPLIED) {
                        holding = false;
                        cached.set(written);
                        return current;
                    }
                    if (outcome == Outcome.NOT_APPLIED) {
                        cached.set(null);
                        break; // start over; the finally block releases the gate if we still hold it
                    }
                    // STILL_HOLDING: read and decide again under the same gate
                }
            } finally {
                if (holding) {
                    gate.releaseQuietly(held);
                }
            }
        }
    }

    private CounterGate.Held acquireGate() {
        while (true) {
            try {
                return gate.acquire();
            } catch (ZkException.NoNode e) {
                initialise();
            }
        }
    }

    /** After a lost response to our write multi: was it applied? */
    private Outcome resolveWrite(ZkException loss, CounterGate.Held held, CounterState read, long tag) {
        if (!Retries.recover(client, Deadline.NONE)) {
            throw loss;
        }
        Retries.retrying(client, Deadline.NONE, () -> client.sync(valuePath));
        CounterState now = readValueNode();
        if (now.tag() == tag && now.version() > read.version()) {
            return Outcome.APPLIED;
        }
        if (gate.stillHeld(held)) {
            return Outcome.STILL_HOLDING; // the multi would have deleted our holder child
        }
        if (now.version() == read.version() || now.version() == read.version() + 1) {
            return Outcome.NOT_APPLIED; // unchanged, or someone else's write took the version ours needed
        }
        if (client.sessionId() == held.session()) {
            return Outcome.APPLIED; // only our multi deletes our holder child while our session lives
        }
        throw loss;
    }

    // ---- reads and set-up -----------------------------------------------------------------------------------------

    /** The cached state, or a fresh read (creating the counter if it does not exist). */
    private CounterState state() {
        CounterState s = cached.get();
        while (s == null) {
            try {
                s = readValueNode();
            } catch (ZkException.NoNode e) {
                initialise();
            }
        }
        return s;
    }

    /** Reads {@code C/value} (NoNode if missing) and caches it. */
    private CounterState readValueNode() {
        NodeData d = Retries.retrying(client, Deadline.NONE, () -> client.getData(valuePath));
        CounterState s = CounterState.decode(d.data(), d.stat());
        cached.set(s);
        return s;
    }

    /** Creates {@code C} and {@code C/value} (value 0) if missing; concurrent creators are fine. */
    private void initialise() {
        createIfMissing(path, EMPTY, Parents.CONTAINER);
        createIfMissing(valuePath, CounterState.encode(0, 0, 0), Parents.NONE);
    }

    private void createIfMissing(String p, byte[] data, Parents parents) {
        try {
            Retries.retrying(client, Deadline.NONE, () -> client.create(p, data, CreateMode.PERSISTENT, parents));
        } catch (ZkException.NodeExists e) {
            // created by someone else, or by us before a lost response
        } catch (ZkException.NoNode e) {
            // C vanished between the two creates (deleted by someone): the caller reads again and retries
        }
    }

    @Override
    public String toString() {
        return "DistributedCounter[" + path + "]";
    }
}
