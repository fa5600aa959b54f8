package dev.zkr.tree;

import java.util.ArrayList;
import java.util.List;

/**
 * One session's applied client writes, as far as exactly-once needs them: the highest client xid applied, the
 * client's acknowledgement (the lowest xid it still waited for, as its latest applied write said) and the replies
 * of its writes from the acknowledgement on, at most its last {@link #WINDOW}, oldest first. The client has the
 * reply of every xid below its acknowledgement and never sends one again; a client that does not acknowledge
 * keeps at most {@link #WINDOW} writes in flight (zkr's client enforces it), so when a write is evicted here the
 * client had its reply before it sent the write that evicted it (docs/exactly-once.md, The bound).
 *
 * <p>Mutated inside a round (apply), read by the snapshot thread: every method is synchronized.
 */
final class SessionWrites {

    /** The most writes a client may have in flight, and the replies kept per session. */
    static final int WINDOW = 1024;

    private final int window;
    private SavedReply[] ring;
    private int head;
    private int size;
    private int highestXid;
    /** The client's acknowledgement: it has the replies of every xid before it (0: none yet). */
    private int acked;

    SessionWrites() {
        this(WINDOW);
    }

    SessionWrites(int window) {
        this.window = window;
        this.ring = new SavedReply[Math.min(window, 4)];
    }

    /**
     * Records an applied write. A write already recorded (a replay over a snapshot that holds it) keeps the reply
     * recorded first: that is the one its client may have seen. A write applied after a later one of its session
     * (its client's earlier attempt was lost while a later write got through) is recorded in xid order all the same.
     */
    synchronized void record(SavedReply r) {
        if (highestXid != 0 && !after(r.xid(), highestXid)) {
            if (find(r.xid()) == null && !evicted(r.xid())) {
                insertInOrder(r);
            }
            return;
        }
        highestXid = r.xid();
        if (size == ring.length && size < window) {
            SavedReply[] bigger = new SavedReply[Math.min(window, ring.length * 2)];
            for (int i = 0; i < size; i++) {
                bigger[i] = ring[(head + i) % ring.length];
            }
            ring = bigger;
            head = 0;
        }
        if (size == window) {
            ring[head] = r;
            head = (head + 1) % ring.length;
        } else {
            ring[(head + size) % ring.length] = r;
            size++;
        }
    }

    private void insertInOrder(SavedReply r) {
        List<SavedReply> all = replies();
        int at = 0;
        while (at < all.size() && after(r.xid(), all.get(at).xid())) {
            at++;
        }
        all.add(at, r);
        if (all.size() > window) {
            all.remove(0);
        }
        ring = new SavedReply[Math.max(ring.length, all.size())];
        head = 0;
        size = all.size();
        for (int i = 0; i < size; i++) {
            ring[i] = all.get(i);
        }
    }

    /**
     * Takes the client's acknowledgement of write {@code xid} (it waited for nothing before {@code ackedXid} when
     * it sent it): the replies before it are dropped. Only forward, and never past the write itself (a client that
     * claims more is taken at its word up to that write): applied in log order on every replica, it drops the same
     * replies everywhere. A replay over a snapshot that already holds it changes nothing.
     */
    synchronized void acknowledge(int xid, int ackedXid) {
        if (ackedXid == TxnHeader.NO_XID) {
            return;
        }
        int upTo = after(ackedXid, xid) ? xid : ackedXid;
        if (acked != 0 && !after(upTo, acked)) {
            return;
        }
        acked = upTo;
        while (size > 0 && after(upTo, ring[head].xid())) {
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
        if (ring.length > 4 && size <= ring.length / 4) { // a burst's ring shrinks with the client's window
            SavedReply[] smaller = new SavedReply[Math.max(4, ring.length / 2)];
            for (int i = 0; i < size; i++) {
                smaller[i] = ring[(head + i) % ring.length];
            }
            ring = smaller;
            head = 0;
        }
    }

    /**
     * True if the reply of {@code xid} is not kept although the write may have been sent: {@code xid} comes before
     * the client's acknowledgement (it had that reply, or the write failed without a txn), or the window is full
     * and {@code xid} comes before the oldest reply kept.
     */
    synchronized boolean evicted(int xid) {
        return acknowledged(xid) || (size == window && after(ring[head].xid(), xid));
    }

    /** True if {@code xid} comes before the client's acknowledgement: it has that reply. */
    synchronized boolean acknowledged(int xid) {
        return acked != 0 && after(acked, xid);
    }

    /** The saved reply of {@code xid}, or null. */
    synchronized SavedReply find(int xid) {
        if (size == 0 || after(xid, highestXid)) {
            return null;
        }
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) { // xids increase from oldest to newest
            int mid = (lo + hi) >>> 1;
            SavedReply r = ring[(head + mid) % ring.length];
            if (after(xid, r.xid())) {
                lo = mid + 1;
            } else if (after(r.xid(), xid)) {
                hi = mid - 1;
            } else {
                return r;
            }
        }
        return null;
    }

    /**
     * True if xid {@code a} comes after {@code b} in a session's sequence. Serial-number arithmetic (RFC 1982): a
     * client's xids wrap from {@code Integer.MAX_VALUE} to {@code Integer.MIN_VALUE} (skipping 0, {@link
     * TxnHeader#NO_XID}), and any two a session may still compare are less than 2^31 apart.
     */
    static boolean after(int a, int b) {
        return a - b > 0;
    }

    /** The highest client xid applied (0 before any). */
    synchronized int highestXid() {
        return highestXid;
    }

    /** The client's acknowledgement (0: none). */
    synchronized int acked() {
        return acked;
    }

    /** The highest xid, the acknowledgement and the saved replies, read together. */
    record State(int highestXid, int acked, List<SavedReply> replies) {
    }

    /**
     * The highest xid and the saved replies as of one instant, for a snapshot written while applies go on: read
     * apart, a write recorded in between would leave the highest xid above the replies written, and the replay
     * after the snapshot would then skip saving that write (the EnsembleSoakQuickTest found it: "write xid 84 was
     * applied before, and its reply is no longer kept").
     */
    synchronized State state() {
        return new State(highestXid, acked, replies());
    }

    /** The saved replies, oldest first (a copy). */
    synchronized List<SavedReply> replies() {
        List<SavedReply> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(ring[(head + i) % ring.length]);
        }
        return list;
    }

    /** Restores a state written by a snapshot. */
    synchronized void restore(int highest, int ackedXid, List<SavedReply> replies) {
        for (SavedReply r : replies) {
            record(r);
        }
        if (highestXid == 0 || after(highest, highestXid)) {
            highestXid = highest;
        }
        if (ackedXid != TxnHeader.NO_XID && (acked == 0 || after(ackedXid, acked))) {
            acked = ackedXid;
        }
    }
}
