package dev.zkr.tree;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Fuzzy snapshot + log replay converges to the tree the log describes. */
class ReplayPropertiesTest {

    @Property
    void fuzzySnapshotPlusReplayGivesTheSameTree(@ForAll("steps") List<OpGen.Step> steps,
                                                 @ForAll @IntRange(min = 0, max = 10_000) int a,
                                                 @ForAll @IntRange(min = 0, max = 10_000) int b,
                                                 @ForAll long seed) throws IOException {
        Driver d = new Driver(false);
        d.run(steps);
        List<TxnCodec.Entry> log = d.log;
        String expected = d.tree.canonicalDump();
        int n = log.size();
        int j = a % (n + 1);

        // a snapshot that starts after j txns while the following txns keep being applied during the write
        DataTree live = new DataTree();
        for (int i = 0; i < j; i++) {
            apply(live, log.get(i));
        }
        Random rnd = new Random(seed);
        int[] next = {j};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        live.writeSnapshot(new DataOutputStream(bytes), () -> {
            while (next[0] < n && rnd.nextInt(3) == 0) {
                apply(live, log.get(next[0]++));
            }
        });
        for (int i = next[0]; i < n; i++) {
            apply(live, log.get(i));
        }
        assertEquals(expected, live.canonicalDump(), "snapshot writing must not disturb applies");

        DataTree restored = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        long from = restored.lastZxid();
        for (TxnCodec.Entry e : log) {
            if (e.header().zxid() > from) {
                apply(restored, e);
            }
        }
        assertEquals(expected, restored.canonicalDump());
        restored.checkInvariants();

        // a consistent snapshot after k txns, replayed from an earlier zxid j (txns j+1..k applied twice)
        int k = j + b % (n - j + 1);
        DataTree atK = new DataTree();
        for (int i = 0; i < k; i++) {
            apply(atK, log.get(i));
        }
        DataTree again = DataTreeTest.roundTrip(atK);
        for (int i = j; i < n; i++) {
            apply(again, log.get(i));
        }
        assertEquals(expected, again.canonicalDump());
        again.checkInvariants();
    }

    private static void apply(DataTree tree, TxnCodec.Entry e) {
        tree.apply(e.header(), e.txn());
    }

    @Provide
    Arbitrary<List<OpGen.Step>> steps() {
        return OpGen.steps();
    }
}
