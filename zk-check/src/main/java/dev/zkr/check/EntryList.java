package dev.zkr.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The call and return events of one partition in time order, as a doubly linked list from which a linearised
 * operation's two events are lifted and later put back (in reverse order of lifting).
 *
 * <p>Calls sort before returns at equal times, so operations whose intervals touch count as concurrent.
 * Indeterminate operations have no return event: nothing forces them to be linearised.
 */
final class EntryList {

    /** One event; {@code match} links a call to its return ({@code null} for an indeterminate call). */
    static final class Entry {
        final int op;
        final boolean call;
        final long time;
        Entry match;
        Entry prev;
        Entry next;

        Entry(int op, boolean call, long time) {
            this.op = op;
            this.call = call;
            this.time = time;
        }
    }

    /** Sentinel before the first event. */
    final Entry head = new Entry(-1, false, Long.MIN_VALUE);

    EntryList(List<Operation> ops) {
        List<Entry> entries = new ArrayList<>(2 * ops.size());
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            Entry call = new Entry(i, true, op.invoke());
            entries.add(call);
            if (op.completed()) {
                call.match = new Entry(i, false, op.response());
                entries.add(call.match);
            }
        }
        entries.sort(Comparator.<Entry>comparingLong(e -> e.time)
                .thenComparing(e -> !e.call)
                .thenComparingInt(e -> e.op));
        Entry last = head;
        for (Entry e : entries) {
            last.next = e;
            e.prev = last;
            last = e;
        }
    }

    /** Unlinks a call and its return. */
    static void lift(Entry call) {
        unlink(call);
        if (call.match != null) {
            unlink(call.match);
        }
    }

    /** Relinks what {@link #lift} unlinked; must undo the most recent lift first. */
    static void unlift(Entry call) {
        if (call.match != null) {
            relink(call.match);
        }
        relink(call);
    }

    private static void unlink(Entry e) {
        e.prev.next = e.next;
        if (e.next != null) {
            e.next.prev = e.prev;
        }
    }

    private static void relink(Entry e) {
        e.prev.next = e;
        if (e.next != null) {
            e.next.prev = e;
        }
    }
}
