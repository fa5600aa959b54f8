package dev.zkr.cli;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class JsonTest {

    @Test
    void scalars() {
        assertEquals("null", Json.write(null));
        assertEquals("true", Json.write(true));
        assertEquals("-42", Json.write(-42));
        assertEquals("9007199254740993", Json.write(9007199254740993L));
        assertEquals("1.5", Json.write(1.5));
        assertEquals("null", Json.write(Double.NaN));
        assertEquals("\"plain\"", Json.write("plain"));
    }

    @Test
    void escapesQuotesBackslashesAndEveryControlCharacter() {
        assertEquals("\"a\\\"b\\\\c/d\"", Json.write("a\"b\\c/d"));
        assertEquals("\"\\n\\r\\t\\b\\f\"", Json.write("\n\r\t\b\f"));
        assertEquals("\"\\u0000\\u0001\\u001f \"", Json.write("\u0000\u0001\u001f "));
        assertEquals("\"\u007f\"", Json.write("\u007f")); // DEL needs no escape
        for (char c = 0; c < 0x20; c++) {
            String json = Json.write(String.valueOf(c));
            assertEquals('\\', json.charAt(1), "control char " + (int) c + " escaped");
        }
    }

    @Test
    void keepsUnicodeButEscapesLineSeparatorsAndLoneSurrogates() {
        assertEquals("\"é 日本 \uD83D\uDE00\"", Json.write("é 日本 \uD83D\uDE00"));
        assertEquals("\"\\u2028\\u2029\"", Json.write("\u2028\u2029"));
        assertEquals("\"\\ud83d x \\ude00\"", Json.write("\uD83D x \uDE00"));
    }

    @Test
    void nestedMapsAndListsKeepOrderAndEscapeKeys() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a\"key", List.of("x", 2, false));
        m.put("nested", Map.of("k", "v"));
        m.put("empty", List.of());
        m.put("nullable", null);
        m.put("list with null", Arrays.asList(null, "y"));
        assertEquals("{\"z\":1,\"a\\\"key\":[\"x\",2,false],\"nested\":{\"k\":\"v\"},\"empty\":[],\"nullable\":null,"
                + "\"list with null\":[null,\"y\"]}", Json.write(m));
    }
}
