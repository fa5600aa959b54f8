package dev.zkr.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NodeBytesTest {

    @Test
    void packsNameAndDataAndGivesThemBack() {
        Random random = new Random(3);
        String[] names = {"", "a", "c999", "é", "日本語", "x".repeat(63), "y".repeat(64), "z".repeat(70_000),
                "mixed-ü-" + "q".repeat(200)};
        for (String name : names) {
            for (byte[] data : new byte[][] {null, new byte[0], bytes(random, 1), bytes(random, 100),
                    bytes(random, 5_000)}) {
                String path = "/parent/" + name;
                byte[] packed = NodeBytes.pack(path, 8, path.length(), data);
                assertEquals(name, NodeBytes.name(packed));
                assertEquals(name.length(), NodeBytes.nameChars(packed));
                assertArrayEquals(data, NodeBytes.data(packed));
                assertEquals(data == null ? 0 : data.length, NodeBytes.dataLength(packed));
                assertEquals(NodeBytes.hash(path, 8, path.length()), NodeBytes.nameHash(packed));
                assertEquals(NodeBytes.hash(name, 0, name.length()), NodeBytes.nameHash(packed));
                assertTrue(NodeBytes.nameEquals(packed, path, 8, path.length()));
                assertFalse(NodeBytes.nameEquals(packed, path + "x", 8, path.length() + 1));
                assertFalse(NodeBytes.nameEquals(packed, path + "é", 8, path.length() + 1));
                if (!name.isEmpty()) {
                    assertFalse(NodeBytes.nameEquals(packed, path, 8, path.length() - 1));
                }
                byte[] other = bytes(random, 7);
                byte[] changed = NodeBytes.withData(packed, other);
                assertEquals(name, NodeBytes.name(changed));
                assertArrayEquals(other, NodeBytes.data(changed));
                assertNull(NodeBytes.data(NodeBytes.withData(packed, null)));
            }
        }
    }

    @Test
    void aNameAndItsDataCostOneArrayWithOneHeaderByte() {
        byte[] packed = NodeBytes.pack("c123".getBytes(StandardCharsets.UTF_8), new byte[100]);
        assertEquals(1 + 4 + 100, packed.length);
    }

    @Test
    void namesThatShareBytesAreNotEqual() {
        byte[] packed = NodeBytes.pack("ab".getBytes(StandardCharsets.UTF_8), "cd".getBytes(StandardCharsets.UTF_8));
        assertFalse(NodeBytes.nameEquals(packed, "/abc", 1, 4)); // the name is not read into the data
        assertFalse(NodeBytes.nameEquals(packed, "/abcd", 1, 5));
        assertFalse(NodeBytes.nameEquals(packed, "/a", 1, 2));
        assertTrue(NodeBytes.nameEquals(packed, "/x/ab", 3, 5));
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
