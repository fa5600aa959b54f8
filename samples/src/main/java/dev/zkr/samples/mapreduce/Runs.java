package dev.zkr.samples.mapreduce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Intermediate data: runs of {@code word count} lines, sorted by word. Map outputs, shuffled runs (sorted, with
 * one line per map output the word appeared in) and reduce outputs (one line per word) all use this format.
 */
final class Runs {

    /** One line of a run. */
    record Entry(String word, long count) {
    }

    private Runs() {
    }

    /** The reducer partition of a word (String.hashCode is specified, so every JVM agrees). */
    static int partition(String word, int reducers) {
        return Math.floorMod(word.hashCode(), reducers);
    }

    static byte[] encode(List<Entry> entries) {
        StringBuilder b = new StringBuilder(entries.size() * 12);
        for (Entry e : entries) {
            b.append(e.word()).append(' ').append(e.count()).append('\n');
        }
        return Nodes.utf8(b.toString());
    }

    static byte[] encode(TreeMap<String, Long> counts) {
        List<Entry> entries = new ArrayList<>(counts.size());
        counts.forEach((w, c) -> entries.add(new Entry(w, c)));
        return encode(entries);
    }

    static List<Entry> decode(byte[] data) {
        List<Entry> out = new ArrayList<>();
        String text = Nodes.string(data);
        int pos = 0;
        while (pos < text.length()) {
            int nl = text.indexOf('\n', pos);
            int sp = text.indexOf(' ', pos);
            out.add(new Entry(text.substring(pos, sp), Long.parseLong(text.substring(sp + 1, nl))));
            pos = nl + 1;
        }
        return out;
    }

    /** Merges sorted runs into one sorted run (a k-way merge; equal words keep run order). */
    static List<Entry> merge(List<List<Entry>> runs) {
        List<Entry> out = new ArrayList<>();
        java.util.PriorityQueue<int[]> heads = new java.util.PriorityQueue<>((a, b) -> {
            int c = runs.get(a[0]).get(a[1]).word().compareTo(runs.get(b[0]).get(b[1]).word());
            return c != 0 ? c : Integer.compare(a[0], b[0]);
        });
        for (int i = 0; i < runs.size(); i++) {
            if (!runs.get(i).isEmpty()) {
                heads.add(new int[] {i, 0});
            }
        }
        while (!heads.isEmpty()) {
            int[] h = heads.poll();
            out.add(runs.get(h[0]).get(h[1]));
            if (h[1] + 1 < runs.get(h[0]).size()) {
                heads.add(new int[] {h[0], h[1] + 1});
            }
        }
        return out;
    }

    /** Sums adjacent equal words of a sorted run. */
    static List<Entry> sum(List<Entry> sorted) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : sorted) {
            int last = out.size() - 1;
            if (last >= 0 && out.get(last).word().equals(e.word())) {
                out.set(last, new Entry(e.word(), out.get(last).count() + e.count()));
            } else {
                out.add(e);
            }
        }
        return out;
    }

    static void addTo(Map<String, Long> into, List<Entry> entries) {
        for (Entry e : entries) {
            into.merge(e.word(), e.count(), Long::sum);
        }
    }
}
