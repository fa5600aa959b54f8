package dev.zkr.tree;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A node's name and data packed into one array, so a znode costs one array header instead of two (a name array and a
 * data array) and no path string at all: {@code varint(nameLength << 1 | dataIsNull), name (UTF-8), data}. The name
 * is the last path component; the path itself is never stored, it is the chain of names from the root. Names are
 * valid strings without surrogates ({@code ZkPaths} rejects U+D800..U+F8FF), so UTF-8 maps them one to one.
 * Stateless.
 */
final class NodeBytes {
    private NodeBytes() {
    }

    /** The packed form of this name and data (data may be null). */
    static byte[] pack(byte[] name, byte[] data) {
        int header = name.length << 1 | (data == null ? 1 : 0);
        int headerLength = varintLength(header);
        int dataLength = data == null ? 0 : data.length;
        byte[] packed = new byte[headerLength + name.length + dataLength];
        int i = 0;
        for (int v = header; ; v >>>= 7) {
            if ((v & ~0x7F) == 0) {
                packed[i++] = (byte) v;
                break;
            }
            packed[i++] = (byte) ((v & 0x7F) | 0x80);
        }
        System.arraycopy(name, 0, packed, i, name.length);
        if (data != null) {
            System.arraycopy(data, 0, packed, i + name.length, dataLength);
        }
        return packed;
    }

    /** The packed form of the name {@code path[from, to)} and this data. */
    static byte[] pack(String path, int from, int to, byte[] data) {
        return pack(path.substring(from, to).getBytes(StandardCharsets.UTF_8), data);
    }

    /** The same name with other data. */
    static byte[] withData(byte[] packed, byte[] data) {
        return pack(Arrays.copyOfRange(packed, nameStart(packed), dataStart(packed)), data);
    }

    /** A copy of the data (null if the data is null). */
    static byte[] data(byte[] packed) {
        return header(packed) % 2 == 1 ? null : Arrays.copyOfRange(packed, dataStart(packed), packed.length);
    }

    /** The length of the data (0 if null). */
    static int dataLength(byte[] packed) {
        return packed.length - dataStart(packed);
    }

    static String name(byte[] packed) {
        int from = nameStart(packed);
        return new String(packed, from, nameLength(packed), StandardCharsets.UTF_8);
    }

    /** The number of UTF-16 chars of the name (what {@code name(packed).length()} gives, without the string). */
    static int nameChars(byte[] packed) {
        int from = nameStart(packed);
        int to = from + nameLength(packed);
        int chars = 0;
        for (int i = from; i < to; i++) {
            if ((packed[i] & 0xC0) != 0x80) {
                chars++;
            }
        }
        return chars;
    }

    /** Whether the name equals {@code path[from, to)}. */
    static boolean nameEquals(byte[] packed, String path, int from, int to) {
        int start = nameStart(packed);
        int length = nameLength(packed);
        if (length < to - from) {
            return false; // UTF-8 is never shorter than the char count
        }
        for (int i = 0; i < to - from; i++) {
            char c = path.charAt(from + i);
            if (c >= 0x80) {
                byte[] name = path.substring(from, to).getBytes(StandardCharsets.UTF_8);
                return Arrays.equals(packed, start, start + length, name, 0, name.length);
            }
            if (i >= length || packed[start + i] != (byte) c) {
                return false;
            }
        }
        return length == to - from;
    }

    /** {@link #hash(String, int, int)} of the name. */
    static int nameHash(byte[] packed) {
        int from = nameStart(packed);
        int to = from + nameLength(packed);
        int h = 0;
        for (int i = from; i < to; i++) {
            byte b = packed[i];
            if (b < 0) {
                String name = name(packed);
                return hash(name, 0, name.length());
            }
            h = 31 * h + b;
        }
        return mix(h);
    }

    /** The hash of the name {@code path[from, to)} (String's polynomial over its chars, then mixed). */
    static int hash(String path, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) {
            h = 31 * h + path.charAt(i);
        }
        return mix(h);
    }

    private static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private static int header(byte[] packed) {
        int v = 0;
        for (int i = 0, shift = 0; ; i++, shift += 7) {
            byte b = packed[i];
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
    }

    private static int nameStart(byte[] packed) {
        int i = 0;
        while (packed[i] < 0) {
            i++;
        }
        return i + 1;
    }

    private static int nameLength(byte[] packed) {
        return header(packed) >>> 1;
    }

    private static int dataStart(byte[] packed) {
        return nameStart(packed) + nameLength(packed);
    }

    private static int varintLength(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }
}
