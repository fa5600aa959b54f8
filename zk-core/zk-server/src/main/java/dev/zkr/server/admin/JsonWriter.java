package dev.zkr.server.admin;

import java.util.ArrayDeque;

/**
 * A small streaming JSON writer for the admin endpoint's answers (the server has no JSON library): strings are escaped
 * per RFC 8259, control characters and the characters that matter in HTML ({@code < > &}) as {@code \}{@code uXXXX}.
 */
final class JsonWriter {

    private final StringBuilder out = new StringBuilder(256);
    /** Per open object or array: true until its first element is written. */
    private final ArrayDeque<boolean[]> first = new ArrayDeque<>();
    private boolean afterName;

    JsonWriter beginObject() {
        element();
        out.append('{');
        first.push(new boolean[] {true});
        return this;
    }

    JsonWriter endObject() {
        first.pop();
        out.append('}');
        return this;
    }

    JsonWriter beginArray() {
        element();
        out.append('[');
        first.push(new boolean[] {true});
        return this;
    }

    JsonWriter endArray() {
        first.pop();
        out.append(']');
        return this;
    }

    JsonWriter name(String name) {
        element();
        quote(name);
        out.append(':');
        afterName = true;
        return this;
    }

    JsonWriter value(String s) {
        element();
        if (s == null) {
            out.append("null");
        } else {
            quote(s);
        }
        return this;
    }

    JsonWriter value(long v) {
        element();
        out.append(v);
        return this;
    }

    JsonWriter value(boolean v) {
        element();
        out.append(v);
        return this;
    }

    JsonWriter field(String name, String v) {
        return name(name).value(v);
    }

    JsonWriter field(String name, long v) {
        return name(name).value(v);
    }

    JsonWriter field(String name, boolean v) {
        return name(name).value(v);
    }

    private void element() {
        if (afterName) {
            afterName = false;
            return;
        }
        boolean[] f = first.peek();
        if (f != null) {
            if (!f[0]) {
                out.append(',');
            }
            f[0] = false;
        }
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029
                            || Character.isSurrogate(c) && !validSurrogate(s, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static boolean validSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
