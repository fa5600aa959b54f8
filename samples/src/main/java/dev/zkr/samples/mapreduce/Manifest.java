package dev.zkr.samples.mapreduce;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The job output's manifest, {@code _MANIFEST} in the output directory: the partitions committed so far (their part
 * file's size, word counts, committer) and the fencing token of its last writer. Reducers update it
 * read-modify-write under the commit lock; a committer whose token is smaller than the recorded one is a stale
 * holder and must not write ({@link #admits}). Pure: text in, text out.
 *
 * @param token      the commit lock's fencing token of the last writer (0: never written)
 * @param partitions committed partitions by number
 */
record Manifest(long token, Map<Integer, Part> partitions) {

    /** One committed partition. */
    record Part(long bytes, long words, int distinct, String worker, long token) {
    }

    static final Manifest EMPTY = new Manifest(0, Map.of());

    Manifest {
        partitions = Collections.unmodifiableMap(new TreeMap<>(partitions));
    }

    /** True if a holder of the commit lock with {@code fencingToken} may write: no later holder wrote before it. */
    boolean admits(long fencingToken) {
        return fencingToken >= token;
    }

    /** This manifest with {@code partition} (re)committed by the holder of {@code part.token()}. */
    Manifest with(int partition, Part part) {
        Map<Integer, Part> m = new TreeMap<>(partitions);
        m.put(partition, part);
        return new Manifest(part.token(), m);
    }

    String encode() {
        StringBuilder b = new StringBuilder("# zkr MapReduce output: committed partitions\n");
        b.append("token=").append(token).append('\n');
        partitions.forEach((p, e) -> b.append(JobOutput.partName(p)).append(" bytes=").append(e.bytes())
                .append(" words=").append(e.words()).append(" distinct=").append(e.distinct())
                .append(" by=").append(e.worker()).append(" token=").append(e.token()).append('\n'));
        return b.toString();
    }

    /** Parses {@link #encode()}'s text; IllegalArgumentException for anything else. */
    static Manifest decode(String text) {
        long token = -1;
        Map<Integer, Part> parts = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("token=")) {
                token = Long.parseLong(line.substring("token=".length()));
                continue;
            }
            String[] f = line.split(" ");
            if (f.length != 6 || !f[0].startsWith(JobOutput.PART_PREFIX)) {
                throw new IllegalArgumentException("bad manifest line: " + line);
            }
            Map<String, String> kv = new TreeMap<>();
            for (int i = 1; i < f.length; i++) {
                int eq = f[i].indexOf('=');
                if (eq < 1) {
                    throw new IllegalArgumentException("bad manifest line: " + line);
                }
                kv.put(f[i].substring(0, eq), f[i].substring(eq + 1));
            }
            parts.put(Integer.parseInt(f[0].substring(JobOutput.PART_PREFIX.length())),
                    new Part(Long.parseLong(kv.get("bytes")), Long.parseLong(kv.get("words")),
                            Integer.parseInt(kv.get("distinct")), kv.get("by"), Long.parseLong(kv.get("token"))));
        }
        if (token < 0) {
            throw new IllegalArgumentException("manifest without token line");
        }
        return new Manifest(token, parts);
    }
}
