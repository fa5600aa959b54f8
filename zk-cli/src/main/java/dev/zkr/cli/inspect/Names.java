package dev.zkr.cli.inspect;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The names the recipes give their sequential nodes: {@code [_c_<uuid>-]<base><10-digit sequence>}, where the
 * {@code _c_<uuid>-} prefix (zk-recipes' protected names) lets a creator find a node whose create response was
 * lost. Pure.
 */
final class Names {

    static final String PROTECTED_PREFIX = "_c_";
    private static final int UUID_LENGTH = 36;
    static final int SEQUENCE_DIGITS = 10;

    private Names() {
    }

    /** The sequence number at the end of the name, or -1 if it does not end with 10 digits. */
    static long sequence(String name) {
        int n = name.length();
        if (n < SEQUENCE_DIGITS) {
            return -1;
        }
        long value = 0;
        for (int i = n - SEQUENCE_DIGITS; i < n; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /** The base of a sequential name ({@code lock-}, {@code read-}, {@code latch-}, ...): no prefix, no sequence. */
    static String base(String name) {
        String rest = name;
        if (name.startsWith(PROTECTED_PREFIX) && name.length() > PROTECTED_PREFIX.length() + UUID_LENGTH + 1) {
            rest = name.substring(PROTECTED_PREFIX.length() + UUID_LENGTH + 1);
        }
        int n = rest.length() - SEQUENCE_DIGITS;
        return n >= 0 ? rest.substring(0, n) : rest;
    }

    /** The nodes whose sequential name has one of the bases, in sequence (arrival) order. */
    static List<Znode> sequential(List<Znode> nodes, List<String> bases) {
        List<Znode> out = new ArrayList<>();
        for (Znode z : nodes) {
            if (sequence(z.name()) >= 0 && bases.contains(base(z.name()))) {
                out.add(z);
            }
        }
        out.sort(Comparator.comparingLong(z -> sequence(z.name())));
        return out;
    }
}
