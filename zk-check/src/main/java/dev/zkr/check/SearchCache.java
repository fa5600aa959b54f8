package dev.zkr.check;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** Lowe's memo: the (linearised set, model states) configurations the search has already entered. */
final class SearchCache<S> {

    private final Set<Key<S>> seen = new HashSet<>();

    /** Records the configuration; false when it was seen before (its continuations are already explored). */
    boolean add(long[] linearised, Set<S> states) {
        return seen.add(new Key<>(linearised.clone(), states));
    }

    int size() {
        return seen.size();
    }

    private static final class Key<S> {
        private final long[] bits;
        private final Set<S> states;
        private final int hash;

        Key(long[] bits, Set<S> states) {
            this.bits = bits;
            this.states = states;
            this.hash = hash(bits, states);
        }

        /** Sets of linearised ops differ in few bits: mix every word well, or the table degrades to long chains. */
        private static int hash(long[] bits, Set<?> states) {
            long h = states.hashCode();
            for (long word : bits) {
                h = mix(h ^ word);
            }
            return (int) (h ^ (h >>> 32));
        }

        private static long mix(long x) {
            x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
            x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
            return x ^ (x >>> 33);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key<?> other && hash == other.hash && Arrays.equals(bits, other.bits)
                    && states.equals(other.states);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
