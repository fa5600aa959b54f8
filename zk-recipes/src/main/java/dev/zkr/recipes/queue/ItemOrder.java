package dev.zkr.recipes.queue;

import dev.zkr.client.ZkPaths;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * How a queue orders its items, from their names alone (a listing is all a consumer needs). An item is
 * {@code item-<uuid>-<seq>} (FIFO) or {@code item-<uuid>-<key>-<seq>}: the key is made so that its string order is
 * the order wanted ({@code p} and the priority as 8 hex digits with the sign bit flipped; {@code d} and the due time
 * in server milliseconds as 16 hex digits; {@code i} and the id's UTF-8 bytes in hex, which orders nothing). Items
 * are sorted by key, then by sequence (FIFO among equal keys). An item without a key (offered by a FIFO producer)
 * sorts as the order's default key (priority 0, due at once, no id).
 */
enum ItemOrder {
    FIFO(""),
    PRIORITY("p"),
    DELAY("d"),
    IDS("i");

    private static final int UUID_LENGTH = 36;
    private static final HexFormat HEX = HexFormat.of();

    private final String tag;

    ItemOrder(String tag) {
        this.tag = tag;
    }

    /** True if items are sorted by key: a take lists again rather than trust a cache filled by an earlier take. */
    boolean sortsByKey() {
        return this == PRIORITY || this == DELAY;
    }

    String priorityKey(int priority) {
        return tag + String.format("%08x", priority ^ Integer.MIN_VALUE);
    }

    String dueKey(long dueMillis) {
        return tag + String.format("%016x", Math.max(0, dueMillis));
    }

    String idKey(String id) {
        return tag + HEX.formatHex(id.getBytes(StandardCharsets.UTF_8));
    }

    /** The key part of an item name, or null if it has none. */
    static String keyOf(String name) {
        int start = QueueCore.ITEM.length() + UUID_LENGTH + 1;
        int end = name.length() - ZkPaths.SEQUENCE_DIGITS - 1;
        if (!name.startsWith(QueueCore.ITEM) || end <= start || name.charAt(end) != '-') {
            return null;
        }
        return name.substring(start, end);
    }

    /** The item's key in this order (the default key if it has none of this order's). */
    private String sortKey(String name) {
        String key = keyOf(name);
        if (key != null && key.startsWith(tag) && key.length() > tag.length()) {
            return key;
        }
        return switch (this) {
            case PRIORITY -> priorityKey(0);
            case DELAY -> dueKey(0);
            default -> "";
        };
    }

    /** The due time (server epoch ms) of an item of a delay queue; 0 (due at once) if it carries none. */
    long dueOf(String name) {
        String key = sortKey(name);
        return this == DELAY ? Long.parseUnsignedLong(key.substring(tag.length()), 16) : 0;
    }

    /** Whether the item carries this id (in an id queue's key). */
    boolean hasId(String name, String idKey) {
        return idKey.equals(keyOf(name));
    }

    /** Item names (sequential ones only) in this order. */
    List<String> sort(List<String> names) {
        List<String> out = new ArrayList<>(names.size());
        for (String n : names) {
            if (ZkPaths.sequenceOf(n) >= 0) {
                out.add(n);
            }
        }
        Comparator<String> bySequence = Comparator.comparingLong(ZkPaths::sequenceOf);
        out.sort(sortsByKey() ? Comparator.comparing(this::sortKey).thenComparing(bySequence) : bySequence);
        return out;
    }
}
