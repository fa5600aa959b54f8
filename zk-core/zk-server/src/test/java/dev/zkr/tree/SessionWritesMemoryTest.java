package dev.zkr.tree;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the exactly-once session writes cost in heap (docs/exactly-once.md, Memory): 20,000 sessions, each with 0,
 * 1, 10 and then {@link SessionWrites#WINDOW} applied writes (creates of 30-character paths, setData), measured as
 * the used heap after a full GC against the same tree without the writes. Opt-in ({@code -Dzkr.perf=true}): heap
 * figures need a quiet JVM.
 */
@EnabledIfSystemProperty(named = "zkr.perf", matches = "true")
class SessionWritesMemoryTest {

    private static final int SESSIONS = 20_000;

    @Test
    void bytesPerSessionAndPerSavedReply() {
        long base = measure(0, false);
        long one = measure(1, false);
        long ten = measure(10, false);
        long tenSet = measure(10, true);
        long perSessionOne = (one - base) / SESSIONS;
        long perReplyCreate = (ten - one) / (9L * SESSIONS);
        long perReplySet = (tenSet - measure(1, true)) / (9L * SESSIONS);
        System.out.printf("zkr.exactlyOnce memory: %d sessions; a session with 1 saved reply %d B more than none; "
                        + "each further saved create reply %d B, setData reply %d B; a full window (%d) of setData "
                        + "replies about %d KiB per session%n", SESSIONS, perSessionOne, perReplyCreate, perReplySet,
                SessionWrites.WINDOW, (perSessionOne + perReplySet * (SessionWrites.WINDOW - 1)) / 1024);
        assertTrue(perReplySet < 400 && perReplyCreate < 500, "saved replies cost more than expected");
    }

    /** Sessions of the busy-session measurement, and the writes each applied (twice the window). */
    private static final int BUSY_SESSIONS = 2_000;
    private static final int BUSY_WRITES = 2 * SessionWrites.WINDOW;

    /**
     * A busy session: {@link #BUSY_WRITES} setData writes pipelined with {@code inFlight} in flight. A client that
     * acknowledges (each write says the lowest xid it still waits for) leaves the replies of its in-flight window;
     * one that does not, the last {@link SessionWrites#WINDOW}.
     */
    @Test
    void aBusySessionThatAcknowledgesKeepsItsInFlightWindow() {
        long base = measureBusy(0, false);
        StringBuilder line = new StringBuilder();
        for (int inFlight : new int[] {1, 10, 100, 1_000}) {
            long perSession = (measureBusy(inFlight, true) - base) / BUSY_SESSIONS;
            line.append(String.format("; %d in flight, acknowledging: %d B", inFlight, perSession));
            assertTrue(perSession < 500 + 300L * inFlight, inFlight + " in flight: " + perSession + " B per session");
        }
        long without = (measureBusy(100, false) - base) / BUSY_SESSIONS;
        System.out.printf("zkr.exactlyOnce memory, busy sessions: %d sessions of %d setData each, bytes per session"
                + "%s; not acknowledging (any window): %d B%n", BUSY_SESSIONS, BUSY_WRITES, line, without);
        assertTrue(without > 100L * SessionWrites.WINDOW, "a session that does not acknowledge keeps its window");
    }

    /**
     * Used heap with {@link #BUSY_SESSIONS} sessions of {@link #BUSY_WRITES} setData each (0: no writes), each write
     * acknowledging all but the last {@code inFlight} (or nothing).
     */
    private static long measureBusy(int inFlight, boolean acknowledging) {
        List<DataTree> keep = new ArrayList<>();
        DataTree tree = new DataTree();
        keep.add(tree);
        long zxid = 1;
        tree.apply(new TxnHeader(zxid++, 1, 0, TxnHeader.NO_XID),
                new Txn.CreateNode("/x", new byte[0], 0, false, 1));
        for (long s = 1; s <= BUSY_SESSIONS; s++) {
            tree.apply(new TxnHeader(zxid++, 1, s, TxnHeader.NO_XID), new Txn.CreateSession(s, 10_000, new byte[16]));
            for (int x = 1; inFlight > 0 && x <= BUSY_WRITES; x++) {
                int acked = acknowledging ? Math.max(1, x - inFlight + 1) : TxnHeader.NO_XID;
                tree.apply(new TxnHeader(zxid++, 1, s, x, acked), new Txn.SetData("/x", new byte[0], 1));
            }
        }
        long used = used();
        if (keep.get(0).nodeCount() < 0) {
            throw new AssertionError();
        }
        return used;
    }

    /** Used heap with {@code SESSIONS} sessions of {@code writes} applied writes each (the tree kept alive). */
    private static long measure(int writes, boolean setData) {
        List<DataTree> keep = new ArrayList<>();
        DataTree tree = new DataTree();
        keep.add(tree);
        long zxid = 1;
        tree.apply(new TxnHeader(zxid++, 1, 0, TxnHeader.NO_XID),
                new Txn.CreateNode("/x", new byte[0], 0, false, 1));
        for (long s = 1; s <= SESSIONS; s++) {
            tree.apply(new TxnHeader(zxid++, 1, s, TxnHeader.NO_XID), new Txn.CreateSession(s, 10_000, new byte[16]));
            for (int x = 1; x <= writes; x++) {
                // the same txn with or without a session that knows it: only the saved reply differs
                Txn txn = setData ? new Txn.SetData("/x", new byte[0], 1)
                        : new Txn.CreateNode(String.format("/x/s%012d-%010d", s, x), new byte[0], 0, false, 1);
                tree.apply(new TxnHeader(zxid++, 1, s, x), txn);
            }
        }
        if (!setData) {
            for (long s = 1; s <= SESSIONS; s++) { // the nodes go; the saved replies stay
                for (int x = 1; x <= writes; x++) {
                    tree.apply(new TxnHeader(zxid++, 1, 0, TxnHeader.NO_XID),
                            new Txn.DeleteNode(String.format("/x/s%012d-%010d", s, x)));
                }
            }
        }
        long used = used();
        if (keep.get(0).nodeCount() < 0) {
            throw new AssertionError();
        }
        return used;
    }

    private static long used() {
        Runtime rt = Runtime.getRuntime();
        long before = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long u = rt.totalMemory() - rt.freeMemory();
            if (u >= before - 1024) {
                return Math.min(u, before);
            }
            before = u;
        }
        return before;
    }
}
