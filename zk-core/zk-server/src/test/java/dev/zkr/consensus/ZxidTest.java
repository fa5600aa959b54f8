package dev.zkr.consensus;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZxidTest {

    @Test
    void epochAndCounterAreTheHighAndLowHalves() {
        long z = Zxid.of(3, 0x2a);
        assertEquals(0x3_0000_002aL, z);
        assertEquals(3, Zxid.epoch(z));
        assertEquals(0x2a, Zxid.counter(z));
        assertEquals("3.42", Zxid.str(z));
        assertEquals(0xFFFF_FFFFL, Zxid.counter(Zxid.of(1, 0xFFFF_FFFFL)));
        assertThrows(IllegalArgumentException.class, () -> Zxid.of(1, 1L << 32));
        assertThrows(IllegalArgumentException.class, () -> Zxid.of(-1, 1));
    }

    @Test
    void nextStartsTheEpochAboveEveryPlainCounterZxid() {
        assertEquals(Zxid.of(1, 1), Zxid.next(0, 1));
        assertEquals(Zxid.of(1, 1), Zxid.next(123_456, 1), "a zxid of the plain-counter days is epoch 0");
        assertTrue(Zxid.next(0xFFFF_FFFFL, 1) > 0xFFFF_FFFFL);
        assertEquals(Zxid.of(1, 8), Zxid.next(Zxid.of(1, 7), 1));
        assertEquals(Zxid.of(2, 1), Zxid.next(Zxid.of(1, 7), 2));
        assertEquals(Zxid.of(2, 8), Zxid.next(Zxid.of(2, 7), 1), "never goes back to an older epoch");
        assertEquals(Zxid.of(2, 1), Zxid.next(Zxid.of(1, 0xFFFF_FFFFL), 1), "a full counter skips counter 0");
    }
}
