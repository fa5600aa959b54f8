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

/**
 * Small znode helpers of the sample. Outputs are written as chunked blobs: a directory node holding the chunk count
 * and children {@code c-0000...} of at most {@link #CHUNK} bytes, so no node comes near the 1 MiB limit. Task outputs
 * are deterministic, so a redone task may find chunks of a dead predecessor and keep them.
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

    /** Creates a persistent node (and parents); false if it existed. */
    static boolean createIfAbsent(ZkClient client, String path, byte[] data) {
        try {
            client.create(path, data, CreateMode.PERSISTENT, Parents.PERSISTENT);
            return true;
        } catch (ZkException.NodeExists e) {
            return false;
        }
    }

    /** Sets the data, creating the node (and parents) if needed. */
    static void put(ZkClient client, String path, byte[] data) {
        while (true) {
            try {
                client.setData(path, data, -1);
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
            return string(client.getData(path).data());
        } catch (ZkException.NoNode e) {
            return null;
        }
    }

    /** Number of children (0 if the node does not exist). */
    static int childCount(ZkClient client, String path) {
        Stat s = client.exists(path);
        return s == null ? 0 : s.numChildren();
    }

    /** Deletes the node and everything below it, if present. */
    static void deleteTree(ZkClient client, String path) {
        List<String> children;
        try {
            children = client.getChildren(path);
        } catch (ZkException.NoNode e) {
            return;
        }
        for (String c : children) {
            deleteTree(client, path + "/" + c);
        }
        try {
            client.delete(path, -1);
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
        int chunks = Integer.parseInt(string(client.getData(dir).data()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < chunks; i++) {
            out.writeBytes(client.getData(dir + "/c-" + Layout.num(i)).data());
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
