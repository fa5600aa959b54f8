package dev.zkr.samples.mapreduce;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The job's input: pseudo-English text generated deterministically from a seed (a Zipf-distributed vocabulary of
 * made-up words, sentences with capitals and punctuation), the word tokenizer shared by the map tasks and the
 * single-threaded reference count.
 */
final class Corpus {

    private static final String[] SYLLABLES = {
        "ka", "lo", "mi", "ne", "ru", "ta", "zo", "pe", "shi", "an", "or", "el", "ur", "da", "vi", "go",
        "ber", "tin", "mor", "sal", "qui", "fen", "dro", "hal", "wen", "yo", "ix", "bra", "cle", "stu"
    };
    private static final int VOCABULARY = 5000;

    private Corpus() {
    }

    /** About {@code bytes} bytes of text from {@code seed} (ASCII, so chars = bytes), ending with a newline. */
    static String generate(long seed, int bytes) {
        Random r = new Random(seed);
        String[] words = vocabulary(r);
        double[] cumulative = new double[words.length];
        double sum = 0;
        for (int i = 0; i < words.length; i++) {
            sum += 1.0 / (i + 1);
            cumulative[i] = sum;
        }
        StringBuilder b = new StringBuilder(bytes + 200);
        while (b.length() < bytes) {
            int n = 6 + r.nextInt(12);
            for (int i = 0; i < n; i++) {
                int k = Arrays.binarySearch(cumulative, r.nextDouble() * sum);
                String w = words[k >= 0 ? k : Math.min(-k - 1, words.length - 1)];
                if (i == 0) {
                    b.append(Character.toUpperCase(w.charAt(0))).append(w, 1, w.length());
                } else {
                    b.append(' ').append(w);
                    if (i < n - 1 && r.nextInt(9) == 0) {
                        b.append(',');
                    }
                }
            }
            b.append(r.nextInt(5) == 0 ? "?\n" : ".\n");
        }
        return b.toString();
    }

    private static String[] vocabulary(Random r) {
        Set<String> words = new LinkedHashSet<>();
        while (words.size() < VOCABULARY) {
            int syllables = 1 + r.nextInt(4);
            StringBuilder w = new StringBuilder();
            for (int i = 0; i < syllables; i++) {
                w.append(SYLLABLES[r.nextInt(SYLLABLES.length)]);
            }
            words.add(w.toString());
        }
        return words.toArray(String[]::new);
    }

    /** Splits the text into {@code n} pieces of about equal size, cutting only at line ends. */
    static List<String> split(String text, int n) {
        List<String> out = new ArrayList<>(n);
        int from = 0;
        for (int i = 1; i <= n; i++) {
            int to;
            if (i == n) {
                to = text.length();
            } else {
                to = Math.max(from, (int) ((long) text.length() * i / n));
                int nl = text.indexOf('\n', to);
                to = nl < 0 ? text.length() : nl + 1;
            }
            out.add(text.substring(from, to));
            from = to;
        }
        return out;
    }

    /** Calls {@code sink} with every word of the text: maximal runs of letters, lower-cased. */
    static void words(String text, Consumer<String> sink) {
        int start = -1;
        for (int i = 0; i <= text.length(); i++) {
            boolean letter = i < text.length() && Character.isLetter(text.charAt(i));
            if (letter && start < 0) {
                start = i;
            } else if (!letter && start >= 0) {
                sink.accept(text.substring(start, i).toLowerCase(java.util.Locale.ROOT));
                start = -1;
            }
        }
    }

    /** The word count of the text, single-threaded: the reference the distributed result is checked against. */
    static Map<String, Long> count(String text) {
        Map<String, Long> counts = new HashMap<>();
        words(text, w -> counts.merge(w, 1L, Long::sum));
        return counts;
    }
}
