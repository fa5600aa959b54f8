package dev.zkr.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChildSetTest {

    @Test
    void agreesWithAHashSetUnderRandomAddsAndRemoves() {
        Random random = new Random(42);
        ChildSet set = new ChildSet(0);
        Set<String> model = new HashSet<>();
        for (int step = 0; step < 200_000; step++) {
            String path = "/parent/n-" + TxnPreparer.withSequenceSuffix("", random.nextInt(5_000));
            if (random.nextInt(3) == 0) {
                assertEquals(model.remove(path), set.remove(path), "remove " + path);
            } else {
                assertEquals(model.add(path), set.add(Node.create(path, new byte[0], 1, 1, 0, false)), "add " + path);
            }
            if (step % 997 == 0) {
                String probe = "/parent/n-" + TxnPreparer.withSequenceSuffix("", random.nextInt(5_000));
                assertEquals(model.contains(probe), set.contains(probe), "contains " + probe);
            }
        }
        assertEquals(model.size(), set.size());
        assertEquals(model, new HashSet<>(set.names().stream().map(n -> "/parent/" + n).toList()));
    }

    @Test
    void sequenceSuffixMatchesZooKeepersFormat() {
        for (int c : new int[]{0, 7, 42, 999_999_999, Integer.MAX_VALUE, -1, -12}) {
            assertEquals("/a/lock-" + String.format("%010d", c), TxnPreparer.withSequenceSuffix("/a/lock-", c));
        }
    }
}
