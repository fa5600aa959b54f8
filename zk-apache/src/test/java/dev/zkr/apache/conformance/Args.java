package dev.zkr.apache.conformance;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** The small values steps are made of, each with a short {@code toString} for shrunk failure reports. */
final class Args {

    private Args() {
    }

    /** Extra create paths: prefixes for sequential names, one ending with {@code /} (valid only when sequential). */
    static final String[] CREATE_ONLY = {"s-", "a/s-", "a/", "d/q-"};

    /**
     * A node: a fixed relative path, or ({@code seq >= 0}) the {@code seq}-th (modulo count) sequential node
     * created so far in this try.
     */
    record PathRef(String rel, int seq) {
        static PathRef of(String rel) {
            return new PathRef(rel, -1);
        }

        static PathRef seq(int k) {
            return new PathRef(null, k);
        }

        @Override
        public String toString() {
            return seq >= 0 ? "seq#" + seq : rel.isEmpty() ? "." : rel;
        }
    }

    /** Node data: {@code n == 0} empty, {@code n > 0} the text "d" + n, {@link #BIG} 2 MiB (over both limits). */
    record Data(int n) {
        static final int BIG_SIZE = 2 * 1024 * 1024;
        static final Data BIG = new Data(-1);

        boolean big() {
            return n < 0;
        }

        byte[] bytes() {
            if (big()) {
                byte[] b = new byte[BIG_SIZE];
                Arrays.fill(b, (byte) 'x');
                return b;
            }
            return n == 0 ? new byte[0] : ("d" + n).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return big() ? "BIG(2MiB)" : n == 0 ? "''" : "'d" + n + "'";
        }
    }

    /** A version argument: -1, the node's current version, or a wrong one (current + 1). */
    enum Version {
        ANY, CURRENT, WRONG
    }

    /** Paths every check on both backends must reject (relative to the try's root where they start with /). */
    static final String[] INVALID = {"/a/", "//a", "/a//b", "/./a", "/a/..", "/a\u0000b", "/a\u0001", "/a\ud800",
        "relative", ""};

    static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
