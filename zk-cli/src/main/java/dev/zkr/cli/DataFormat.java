package dev.zkr.cli;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

/**
 * How node data is typed in and shown: UTF-8 text (the default), hex ({@code --hex}) or base64
 * ({@code --base64}). Pure: no I/O.
 */
public enum DataFormat {
    TEXT("utf8"),
    HEX("hex"),
    BASE64("base64");

    private final String jsonName;

    DataFormat(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name of the encoding in JSON output ({@code "encoding": "utf8" | "hex" | "base64"}). */
    public String jsonName() {
        return jsonName;
    }

    /** Bytes from what the user typed; a malformed hex or base64 string is an {@link IllegalArgumentException}. */
    public byte[] decode(String typed) {
        return switch (this) {
            case TEXT -> typed.getBytes(StandardCharsets.UTF_8);
            case HEX -> {
                String s = typed.replace(" ", "").replace(":", "");
                if (s.startsWith("0x") || s.startsWith("0X")) {
                    s = s.substring(2);
                }
                try {
                    yield HexFormat.of().parseHex(s);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("not hex data: '" + typed + "'");
                }
            }
            case BASE64 -> {
                try {
                    yield Base64.getDecoder().decode(typed.strip());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("not base64 data: '" + typed + "'");
                }
            }
        };
    }

    /** The bytes shown in this format (text: decoded as UTF-8, malformed bytes as U+FFFD). */
    public String encode(byte[] data) {
        return switch (this) {
            case TEXT -> new String(data, StandardCharsets.UTF_8);
            case HEX -> HexFormat.of().formatHex(data);
            case BASE64 -> Base64.getEncoder().encodeToString(data);
        };
    }

    /**
     * The format for JSON output of these bytes: the one asked for, except that text which is not valid UTF-8 is
     * written as base64 (so no byte is lost in JSON).
     */
    public DataFormat forJson(byte[] data) {
        return this == TEXT && !isUtf8(data) ? BASE64 : this;
    }

    /** True if the bytes are well-formed UTF-8. */
    public static boolean isUtf8(byte[] data) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
