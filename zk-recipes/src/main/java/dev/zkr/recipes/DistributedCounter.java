package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A linearizable 64-bit counter in one persistent node (big-endian value; a missing node reads as 0). Updates are
 * a versioned setData compare-and-set loop: no locks, no sleeps, no backoff; a conflict costs one read. Every
 * successful increment returns a distinct value. The last known version is cached, so a lone writer needs one
 * round trip per update.
 *
 * <p>If the connection drops while an update is in flight, the counter finds out whether the update was applied
 * (each write carries a random tag) and returns its result; if that cannot be decided (others wrote since) it
 * throws {@link ZkException.ConnectionLoss} and the update may or may not have happened.
 */
public final class DistributedCounter {

    private static final int VALUE_BYTES = Long.BYTES;
    private static final int TAG_BYTES = Long.BYTES;

    private record Versioned(long value, int version, long tag) {
    }

    private final ZkClient client;
    private final String path;
    private volatile Versioned cached; // last value we read or wrote; may be stale

    DistributedCounter(ZkClient client, String path) {
        this.client = client;
        this.path = path;
    }

    /** The current value (0 if the node does not exist); linearizable: syncs before reading. */
    public long get() {
        Connection.retrying(client, Deadline.NONE, () -> client.sync(path));
        Versioned v = read();
        return v == null ? 0 : v.value;
    }

    public long incrementAndGet() {
        return addAndGet(1);
    }

    public long decrementAndGet() {
        return addAndGet(-1);
    }

    /** Adds delta atomically and returns the new value. */
    public long addAndGet(long delta) {
        Versioned v = cached;
        while (true) {
            if (v == null) {
                v = read();
                if (v == null) {
                    Versioned created = tryCreate(delta);
                    if (created != null) {
                        return created.value;
                    }
                    continue;
                }
            }
            Versioned written = trySet(v, v.value + delta);
            if (written != null) {
                return written.value;
            }
            v = null; // conflict: read again
        }
    }

    /** Sets the value to {@code update} if it is {@code expect}; true if it did. */
    public boolean compareAndSet(long expect, long update) {
        Versioned v = cached;
        boolean fresh = false;
        while (true) {
            if (v == null) {
                v = read();
                fresh = true;
                if (v == null) {
                    if (expect != 0) {
                        return false;
                    }
                    if (tryCreate(update) != null) {
                        return true;
                    }
                    continue;
                }
            }
            if (v.value != expect) {
                if (fresh) {
                    return false;
                }
                v = null;
                continue;
            }
            if (trySet(v, update) != null) {
                return true;
            }
            v = null;
        }
    }

    /** Sets the value unconditionally. */
    public void set(long value) {
        while (true) {
            Versioned v = read();
            if (v == null) {
                if (tryCreate(value) != null) {
                    return;
                }
            } else if (trySet(v, value) != null) {
                return;
            }
        }
    }

    public String path() {
        return path;
    }

    private Versioned read() {
        try {
            NodeData d = Connection.retrying(client, Deadline.NONE, () -> client.getData(path));
            Versioned v = decode(d.data(), d.stat());
            cached = v;
            return v;
        } catch (ZkException.NoNode e) {
            cached = null;
            return null;
        }
    }

    /** Creates the node with the value; null if it exists already. */
    private Versioned tryCreate(long value) {
        long tag = ThreadLocalRandom.current().nextLong();
        try {
            client.createWithStat(path, encode(value, tag), CreateMode.PERSISTENT, Parents.CONTAINER);
            Versioned v = new Versioned(value, 0, tag);
            cached = v;
            return v;
        } catch (ZkException.NodeExists e) {
            return null;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            return resolve(e, -1, tag, value);
        }
    }

    /** Writes the value if the version still matches; null on conflict. */
    private Versioned trySet(Versioned from, long value) {
        long tag = ThreadLocalRandom.current().nextLong();
        try {
            Stat stat = client.setData(path, encode(value, tag), from.version);
            Versioned v = new Versioned(value, stat.version(), tag);
            cached = v;
            return v;
        } catch (ZkException.BadVersion | ZkException.NoNode e) {
            return null;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            return resolve(e, from.version, tag, value);
        }
    }

    /** After a lost response: was our write (version+1, our tag) applied? Null if it clearly was not. */
    private Versioned resolve(ZkException loss, int fromVersion, long tag, long value) {
        if (!Connection.recover(client, Deadline.NONE)) {
            throw loss;
        }
        Versioned now = read();
        if (now == null) {
            return null;
        }
        if (now.tag == tag) {
            return now;
        }
        if (now.version == fromVersion + 1 || now.version <= fromVersion) {
            return null; // someone else's write took that version, or nothing happened: ours was not applied
        }
        throw loss; // others wrote since: cannot tell whether ours was applied
    }

    private static byte[] encode(long value, long tag) {
        return ByteBuffer.allocate(VALUE_BYTES + TAG_BYTES).putLong(value).putLong(tag).array();
    }

    private static Versioned decode(byte[] data, Stat stat) {
        ByteBuffer b = ByteBuffer.wrap(data);
        long value = data.length >= VALUE_BYTES ? b.getLong() : 0;
        long tag = data.length >= VALUE_BYTES + TAG_BYTES ? b.getLong() : 0;
        return new Versioned(value, stat.version(), tag);
    }

    @Override
    public String toString() {
        return "DistributedCounter[" + path + "]";
    }
}
