package dev.zkr.recipes.discovery;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader and writer (RFC 8259) for the instance format: objects become {@link Map}s (in order),
 * arrays {@link List}s, numbers {@link Number}s ({@code Long} when integral, else {@code Double}), {@code null}
 * {@link #NULL}. Malformed text, trailing text, duplicate keys and nesting past 64 levels are rejected with an
 * {@link IllegalArgumentException} naming the offset. {@link #object} also keeps each member's raw text.
 */
final class Json {

    /** The JSON {@code null} (maps and lists hold no Java null). */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final int MAX_DEPTH = 64;

    /** One member of an object: its value and its exact text in the input. */
    record Member(Object value, String raw) {
    }

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value (any kind). */
    static Object parse(String text) {
        Json j = new Json(text);
        j.skipSpace();
        Object v = j.value(0);
        j.end();
        return v;
    }

    /** Parses one JSON object, keeping each member's raw text. */
    static Map<String, Member> object(String text) {
        Json j = new Json(text);
        j.skipSpace();
        if (j.peek() != '{') {
            throw j.error("expected a JSON object");
        }
        Map<String, Member> members = new LinkedHashMap<>();
        j.pos++;
        j.skipSpace();
        if (j.peek() == '}') {
            j.pos++;
        } else {
            while (true) {
                j.skipSpace();
                String key = j.string();
                j.skipSpace();
                j.expect(':');
                j.skipSpace();
                int start = j.pos;
                Object v = j.value(1);
                if (members.put(key, new Member(v, text.substring(start, j.pos))) != null) {
                    throw j.error("duplicate key \"" + key + "\"");
                }
                j.skipSpace();
                if (j.peek() == ',') {
                    j.pos++;
                } else {
                    j.expect('}');
                    break;
                }
            }
        }
        j.end();
        return members;
    }

    private void end() {
        skipSpace();
        if (pos != text.length()) {
            throw error("text after the JSON value");
        }
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH);
        }
        char c = peek();
        switch (c) {
            case '{':
                return objectValue(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return NULL;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error(c == 0 ? "unexpected end of the text" : "unexpected character '" + c + "'");
        }
    }

    private Map<String, Object> objectValue(int depth) {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            if (map.put(key, value(depth + 1)) != null) {
                throw error("duplicate key \"" + key + "\"");
            }
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return map;
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> list = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']') {
            pos++;
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value(depth + 1));
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                return list;
            }
        }
    }

    private String string() {
        if (peek() != '"') {
            throw error("expected a string");
        }
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        int d = Character.digit(text.charAt(pos++), 16);
                        if (d < 0) {
                            throw error("bad \\u escape");
                        }
                        code = code * 16 + d;
                    }
                    sb.append((char) code);
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private Number number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (peek() >= '1' && peek() <= '9') {
            digits();
        } else {
            throw error("bad number");
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!(peek() >= '0' && peek() <= '9')) {
                throw error("bad number: no digit after '.'");
            }
            digits();
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!(peek() >= '0' && peek() <= '9')) {
                throw error("bad number: no digit in the exponent");
            }
            digits();
        }
        String n = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(n);
            } catch (NumberFormatException tooBig) {
                return Double.parseDouble(n);
            }
        }
        return Double.parseDouble(n);
    }

    private void digits() {
        while (peek() >= '0' && peek() <= '9') {
            pos++;
        }
    }

    private void literal(String word) {
        if (!text.startsWith(word, pos)) {
            throw error("bad literal, expected " + word);
        }
        pos += word.length();
    }

    private void expect(char c) {
        if (peek() != c) {
            char got = peek();
            throw error("expected '" + c + "' but found " + (got == 0 ? "the end of the text" : "'" + got + "'"));
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : 0;
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("malformed JSON at offset " + pos + ": " + what);
    }

    // --- writing ---

    /** Appends a JSON string literal. */
    static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
