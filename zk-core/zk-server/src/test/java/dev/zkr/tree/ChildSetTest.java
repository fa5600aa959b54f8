package dev.zkr.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChildSetTest {

    private static Node child(String path) {
        return Node.create(NodeBytes.pack(path, path.lastIndexOf('/') + 1, path.length(), new byte[0]), 1, 1, 0,
                false, 0);
    }

    private static int from(String path) {
        return path.lastIndexOf('/') + 1;
    }

    @Test
    void agreesWithAHashSetUnderRandomAddsAndRemoves() {
        Random random = new Random(42);
        ChildSet set = new ChildSet(0, NodeBytes.pack(Node.EMPTY, Node.EMPTY));
        Set<String> model = new HashSet<>();
        for (int step = 0; step < 200_000; step++) {
            String path = "/parent/n-" + TxnPreparer.withSequenceSuffix("", random.nextInt(5_000));
            if (random.nextInt(3) == 0) {
                assertEquals(model.remove(path), set.remove(path, from(path), path.length()), "remove " + path);
            } else {
                assertEquals(model.add(path), set.add(child(path)), "add " + path);
            }
            if (step % 997 == 0) {
                String probe = "/parent/n-" + TxnPreparer.withSequenceSuffix("", random.nextInt(5_000));
                assertEquals(model.contains(probe), set.get(probe, from(probe), probe.length()) != null,
                        "contains " + probe);
            }
        }
        assertEquals(model.size(), set.size());
        assertEquals(model, new HashSet<>(set.names().stream().map(n -> "/parent/" + n).toList()));
    }

    /**
     * getChildren lists a node's children in slot order; the slot order must be the one of the set before the
     * memory work (which cached each name's hash beside its slot): the same hashes, growth and gap closing, so the
     * same adds and removes give the same list. {@link CachedHashSet} is that set, kept here as the reference.
     */
    @Test
    void listsChildrenInTheSameOrderAsTheSetWithCachedHashes() {
        Random random = new Random(7);
        for (int round = 0; round < 20; round++) {
            ChildSet set = new ChildSet(0, NodeBytes.pack(Node.EMPTY, Node.EMPTY));
            CachedHashSet reference = new CachedHashSet();
            int range = 1 + random.nextInt(3_000);
            for (int step = 0; step < 20_000; step++) {
                String name = switch (random.nextInt(4)) {
                    case 0 -> "n-" + TxnPreparer.withSequenceSuffix("", random.nextInt(range));
                    case 1 -> "é" + random.nextInt(range) + "ü";
                    case 2 -> Integer.toString(random.nextInt(range), 36);
                    default -> "lock-" + random.nextInt(range);
                };
                String path = "/p/" + name;
                if (random.nextInt(3) == 0) {
                    assertEquals(reference.remove(name), set.remove(path, 3, path.length()));
                } else {
                    assertEquals(reference.add(name), set.add(child(path)));
                }
            }
            assertEquals(reference.names(), set.names(), "round " + round);
        }
    }

    @Test
    void sequenceSuffixMatchesZooKeepersFormat() {
        for (int c : new int[]{0, 7, 42, 999_999_999, Integer.MAX_VALUE, -1, -12}) {
            assertEquals("/a/lock-" + String.format("%010d", c), TxnPreparer.withSequenceSuffix("/a/lock-", c));
        }
    }

    /** The child set as it was before the memory work, names instead of nodes: the reference for slot order. */
    private static final class CachedHashSet {
        private String[] slots = new String[4];
        private int[] hashes = new int[4];
        private int size;

        boolean add(String name) {
            int h = hash(name);
            int i = find(name, h);
            if (slots[i] != null) {
                return false;
            }
            if ((size + 1) * 4 > slots.length * 3) {
                grow();
                i = find(name, h);
            }
            slots[i] = name;
            hashes[i] = h;
            size++;
            return true;
        }

        boolean remove(String name) {
            int i = find(name, hash(name));
            if (slots[i] == null) {
                return false;
            }
            int mask = slots.length - 1;
            slots[i] = null;
            size--;
            int j = i;
            while (true) {
                j = (j + 1) & mask;
                if (slots[j] == null) {
                    return true;
                }
                int k = hashes[j] & mask;
                boolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
                if (!stays) {
                    slots[i] = slots[j];
                    hashes[i] = hashes[j];
                    slots[j] = null;
                    i = j;
                }
            }
        }

        /** The old set's hash of a child's name: String's polynomial over its chars, then mixed. */
        static int hash(String name) {
            int h = 0;
            for (int i = 0; i < name.length(); i++) {
                h = 31 * h + name.charAt(i);
            }
            h *= 0x9E3779B9;
            return h ^ (h >>> 16);
        }

        List<String> names() {
            List<String> names = new ArrayList<>();
            for (String s : slots) {
                if (s != null) {
                    names.add(s);
                }
            }
            return names;
        }

        private int find(String name, int hash) {
            int mask = slots.length - 1;
            int i = hash & mask;
            while (slots[i] != null && !(hashes[i] == hash && slots[i].equals(name))) {
                i = (i + 1) & mask;
            }
            return i;
        }

        private void grow() {
            String[] old = slots;
            int[] oldHashes = hashes;
            slots = new String[old.length * 2];
            hashes = new int[old.length * 2];
            int mask = slots.length - 1;
            for (int j = 0; j < old.length; j++) {
                if (old[j] != null) {
                    int i = oldHashes[j] & mask;
                    while (slots[i] != null) {
                        i = (i + 1) & mask;
                    }
                    slots[i] = old[j];
                    hashes[i] = oldHashes[j];
                }
            }
        }
    }
}
