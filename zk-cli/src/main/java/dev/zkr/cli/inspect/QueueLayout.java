package dev.zkr.cli.inspect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a queue from the children of its node, as zk-recipes writes them: items are persistent-sequential nodes
 * {@code item-<uuid>-<seq>} holding the item's bytes, taken in sequence order; the acknowledged queue claims an
 * item with an ephemeral {@code claim-<item name>} node (deleted with the item on ack, or with the consumer's
 * session, when the item is delivered again); each consumer of the simple queue has an ephemeral
 * {@code consumer-<uuid>} node. Pure.
 */
public final class QueueLayout {

    static final String ITEM = "item-";
    static final String CLAIM = "claim-";
    static final String CONSUMER = "consumer-";

    private QueueLayout() {
    }

    /** An item: its node name, sequence, size, when it was offered and, if claimed, by whom and since when. */
    public record Item(String name, long sequence, int size, long offered, long claimedBy, long claimedSince) {

        public boolean claimed() {
            return claimedBy != 0;
        }
    }

    /**
     * A queue's state.
     *
     * @param depth          items in the queue (claimed or not)
     * @param unclaimed      items nobody has claimed
     * @param oldestAgeMillis age of the oldest item at {@code now}, or -1 if empty
     * @param claimed        the claimed items, oldest first
     * @param head           the first items, oldest first (at most the limit asked for)
     * @param consumers      sessions of the simple queue's consumer nodes
     */
    public record QueueReport(int depth, int unclaimed, long oldestAgeMillis, List<Item> claimed, List<Item> head,
                              List<Long> consumers) {
    }

    /** The queue whose node has these children, seen at {@code now} (epoch millis), listing {@code limit} items. */
    public static QueueReport read(List<Znode> children, long now, int limit) {
        Map<String, Znode> claims = new HashMap<>();
        List<Znode> itemNodes = new ArrayList<>();
        List<Long> consumers = new ArrayList<>();
        for (Znode z : children) {
            String n = z.name();
            if (n.startsWith(CLAIM)) {
                claims.put(n.substring(CLAIM.length()), z);
            } else if (n.startsWith(CONSUMER)) {
                consumers.add(z.session());
            } else if (n.startsWith(ITEM) && Names.sequence(n) >= 0) {
                itemNodes.add(z);
            }
        }
        itemNodes.sort((a, b) -> Long.compare(Names.sequence(a.name()), Names.sequence(b.name())));
        List<Item> items = new ArrayList<>();
        for (Znode z : itemNodes) {
            Znode claim = claims.get(z.name());
            items.add(new Item(z.name(), Names.sequence(z.name()), z.stat().dataLength(), z.stat().ctime(),
                    claim == null ? 0 : claim.session(), claim == null ? 0 : claim.stat().ctime()));
        }
        List<Item> claimed = items.stream().filter(Item::claimed).toList();
        long oldest = items.isEmpty() ? -1 : Math.max(0, now - items.get(0).offered());
        return new QueueReport(items.size(), items.size() - claimed.size(), oldest, claimed,
                items.subList(0, Math.min(Math.max(limit, 0), items.size())), consumers);
    }
}
