package dev.zkr.samples.mapreduce;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Small znode helpers of the sample. Outputs are written as chunked blobs: a directory node holding the chunk count
 * and children {@code c-0000...} of at most {@link #CHUNK} bytes, so no node comes near the 1 MiB limit. Task outputs
 * are deterministic, so a redone task may find chunks of a dead predecessor and keep them.
 *
 * <p>Every helper rides through a server failover: a call that fails with {@code ConnectionLoss} (the client's
 * server died, or the leader died under a write its server forwarded) is made again, see {@link #retrying}.
 */
final class Nodes {

    /** Largest chunk of a blob. */
    static final int CHUNK = 256 * 1024;

    private Nodes() {
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Longest wait between two attempts of {@link #retrying}. */
    private static final long MAX_BACKOFF_MS = 50;

    /** How long {@link #retrying} goes on: far beyond a failover (an ensemble without a quorum gets no further). */
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * Runs a call whose repetition is harmless, again after {@code ConnectionLoss} or {@code OperationTimeout}
     * until it is answered. A client whose connection dropped holds new requests until it is connected again
     * (to another server, same session), so the next attempt waits there; a write that failed because the leader
     * died under it is tried again after a short backoff (1, 2, 4 ... at most 50 ms) while the servers elect a
     * new leader. A create that may have been applied before its answer was lost finds its node on the next
     * attempt ({@code NodeExists}): callers treat that as done. Gives up (rethrows) after 30 s without an answer.
     */
    static <T> T retrying(Supplier<T> call) {
        long backoff = 1;
        long giveUpAt = System.nanoTime() + GIVE_UP_NANOS;
        while (true) {
            try {
                return call.get();
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (System.nanoTime() - giveUpAt > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(backoff); // a retry policy's backoff, not a wait for some event
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new ZkException.Interrupted(e.path(), "interrupted while retrying");
                }
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
            }
        }
    }

    static void retrying(Runnable call) {
        retrying(() -> {
            call.run();
            return null;
        });
    }

    /** Creates a persistent node (and parents); false if it existed (or a lost attempt of ours created it). */
    static boolean createIfAbsent(ZkClient client, String path, byte[] data) {
        return retrying(() -> {
            try {
                client.create(path, data, CreateMode.PERSISTENT, Parents.PERSISTENT);
                return true;
            } catch (ZkException.NodeExists e) {
                return false;
            }
        });
    }

    /** Sets the data, creating the node (and parents) if needed. */
    static void put(ZkClient client, String path, byte[] data) {
        while (true) {
            try {
                retrying(() -> client.setData(path, data, -1));
                return;
            } catch (ZkException.NoNode e) {
                if (createIfAbsent(client, path, data)) {
                    return;
                }
            }
        }
    }

    /** The node's data as text, or null if it does not exist. */
    static String readOrNull(ZkClient client, String path) {
        try {
            return string(retrying(() -> client.getData(path)).data());
        } catch (ZkException.NoNode e) {
            return null;
        }
    }

    /** The node's data as text; NoNode if it does not exist. */
    static String read(ZkClient client, String path) {
        return string(retrying(() -> client.getData(path)).data());
    }

    /** Number of children (0 if the node does not exist). */
    static int childCount(ZkClient client, String path) {
        Stat s = retrying(() -> client.exists(path));
        return s == null ? 0 : s.numChildren();
    }

    /** Deletes the node and everything below it, if present. */
    static void deleteTree(ZkClient client, String path) {
        List<String> children;
        try {
            children = retrying(() -> client.getChildren(path));
        } catch (ZkException.NoNode e) {
            return;
        }
        for (String c : children) {
            deleteTree(client, path + "/" + c);
        }
        try {
            retrying(() -> client.delete(path, -1));
        } catch (ZkException.NoNode e) {
            // gone already
        }
    }

    /** Writes a blob under {@code dir} (idempotent for identical content). */
    static void writeBlob(ZkClient client, String dir, byte[] data) {
        int chunks = Math.max(1, (data.length + CHUNK - 1) / CHUNK);
        createIfAbsent(client, dir, utf8(Integer.toString(chunks)));
        for (int i = 0; i < chunks; i++) {
            int from = i * CHUNK;
            int to = Math.min(data.length, from + CHUNK);
            byte[] part = java.util.Arrays.copyOfRange(data, from, to);
            createIfAbsent(client, dir + "/c-" + Layout.num(i), part);
        }
    }

    /** Reads a blob written by {@link #writeBlob}. */
    static byte[] readBlob(ZkClient client, String dir) {
        int chunks = Integer.parseInt(read(client, dir));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < chunks; i++) {
            String chunk = dir + "/c-" + Layout.num(i);
            out.writeBytes(retrying(() -> client.getData(chunk)).data());
        }
        return out.toByteArray();
    }

    /** Parses {@code key=value} lines. */
    static Map<String, String> props(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return m;
    }

    static String props(Map<String, ?> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }
}
