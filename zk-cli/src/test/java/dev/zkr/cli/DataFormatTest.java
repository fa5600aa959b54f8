package dev.zkr.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DataFormatTest {

    private static final byte[] BINARY = {0, 1, (byte) 0xff, (byte) 0xc3, 0x28, 10};

    @Test
    void hexAndBase64RoundTripBinaryData() {
        assertEquals("0001ffc3280a", DataFormat.HEX.encode(BINARY));
        assertArrayEquals(BINARY, DataFormat.HEX.decode("0001ffc3280a"));
        assertArrayEquals(BINARY, DataFormat.HEX.decode("0x00 01 FF:c3 28 0a"));
        assertArrayEquals(BINARY, DataFormat.BASE64.decode(DataFormat.BASE64.encode(BINARY)));
        assertEquals("AAH/wygK", DataFormat.BASE64.encode(BINARY));
    }

    @Test
    void textIsUtf8() {
        assertArrayEquals("héllo wörld".getBytes(StandardCharsets.UTF_8), DataFormat.TEXT.decode("héllo wörld"));
        assertEquals("héllo", DataFormat.TEXT.encode("héllo".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void malformedInputIsAnIllegalArgument() {
        assertEquals("not hex data: 'abc'", assertThrows(IllegalArgumentException.class,
                () -> DataFormat.HEX.decode("abc")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> DataFormat.HEX.decode("zz"));
        assertThrows(IllegalArgumentException.class, () -> DataFormat.BASE64.decode("not base64!"));
    }

    @Test
    void jsonFallsBackToBase64ForBytesThatAreNotUtf8() {
        assertEquals(DataFormat.BASE64, DataFormat.TEXT.forJson(BINARY));
        assertEquals(DataFormat.TEXT, DataFormat.TEXT.forJson("ok\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(DataFormat.HEX, DataFormat.HEX.forJson(BINARY));
    }
}
