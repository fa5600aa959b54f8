package dev.zkr.server.round;

import dev.zkr.wire.Message;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The in-order reply rule: every reply leaves in its connection's order. Each connection's {@link Connection#queue}
 * holds its requests still owed a reply: first the {@link Slot}s of requests that were sequenced, forwarded or
 * answered early, then the requests not yet routed ({@link Unrouted}: reads waiting behind an ordered request, and
 * everything after such a read). A reply decided while an earlier request of its connection is unanswered waits in
 * its slot; a reply the leader decided (or a sync's OK) also waits until the local tree applied the zxid it names,
 * so a client reads its own writes. Once the head of a queue is answered, the replies behind it go out and the
 * requests not yet routed are routed again, in order ({@link Router}).
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class ReplyQueue {

    /** An entry of a connection's queue. */
    sealed interface Entry permits Slot, Unrouted {
    }

    /** A request's place in its connection's reply order; its reply waits here until the entries before it left. */
    static final class Slot implements Entry {
        final Connection connection;
        /** The reply, once decided, while an earlier request of the connection is unanswered. */
        private Message.Reply reply;

        Slot(Connection connection) {
            this.connection = connection;
        }
    }

    /** A request not yet routed: it waits behind a read of its connection that waits itself. */
    record Unrouted(Message.Request request) implements Entry {
    }

    /** Where the requests not yet routed go once the entries before them are answered ({@link ClientRequests}). */
    interface Router {
        /** True if the connection's requests are held (no leader for them yet, or the connection is fenced). */
        boolean holding(Connection c);

        /** Holds {@code requests} (in order) ahead of everything the connection has held already. */
        void holdAhead(Connection c, List<Message.Request> requests);

        /** Routes a request whose turn came (behind the connection's held requests, if it has any). */
        void route(Connection c, Message.Request r);
    }

    /** A reply decided ahead of the local tree: sent once the tree applied {@code afterZxid}. */
    private record Decided(Slot slot, Message.Reply reply, long afterZxid) {
    }

    /** Set once, as the pipeline is assembled. */
    private Router router;
    /** Replies decided, waiting for the tree to apply their {@code afterZxid}, in the order they were decided. */
    private final ArrayDeque<Decided> decided = new ArrayDeque<>();

    /** Where the requests not yet routed go once their turn comes (set once, as the pipeline is assembled). */
    void routeWith(Router r) {
        this.router = r;
    }

    /** Puts a slot at the end of its connection's queue. */
    static void enqueue(Slot s) {
        s.connection.queue.addLast(s);
    }

    /** Puts a request that cannot be routed yet at the end of its connection's queue. */
    static void addUnrouted(Connection c, Message.Request r) {
        c.queue.addLast(new Unrouted(r));
    }

    /** True if requests not yet routed wait in the connection's queue (they are always at its end). */
    static boolean hasUnrouted(Connection c) {
        return !c.queue.isEmpty() && !(c.queue.peekLast() instanceof Slot);
    }

    /** Takes a slot off its queue if it is at the head (a handshake's, answered by other means). */
    static void dequeue(Slot s) {
        Connection c = s == null ? null : s.connection;
        if (c != null && c.queue.peekFirst() == s) {
            c.queue.pollFirst();
        }
    }

    /** Answers a request whose reply is known now, in its connection's order. */
    void answerLater(Slot s, Message.Reply reply) {
        enqueue(s);
        answer(s, reply);
    }

    /**
     * Sends the reply of a slot once every earlier request of its connection is answered, then serves the reads that
     * were waiting behind it.
     */
    void answer(Slot s, Message.Reply reply) {
        Connection c = s == null ? null : s.connection;
        if (c == null || c.closed) {
            return;
        }
        if (c.queue.peekFirst() != s) {
            s.reply = reply; // an earlier request of the connection is not answered yet
            return;
        }
        c.queue.pollFirst();
        c.reply(reply);
        drain(c);
    }

    /** Answers a slot with a reply decided elsewhere (the leader, a read point) once the tree applied {@code zxid}. */
    void answerOnceApplied(Slot s, Message.Reply reply, long afterZxid) {
        decided.addLast(new Decided(s, reply, afterZxid));
    }

    /** Sends the decided replies whose zxid the tree has applied ({@code applied}). */
    void releaseApplied(long applied) {
        for (Iterator<Decided> it = decided.iterator(); it.hasNext(); ) {
            Decided d = it.next();
            if (d.afterZxid() <= applied) {
                it.remove();
                answer(d.slot(), d.reply());
            }
        }
    }

    boolean hasDecided() {
        return !decided.isEmpty();
    }

    /**
     * Sends the decided replies at the head of the connection's queue; once the head is a request not yet routed,
     * routes it and everything after it again, in order (reads are served, writes sequenced or forwarded).
     */
    private void drain(Connection c) {
        while (!c.queue.isEmpty() && !c.closed) {
            Entry next = c.queue.peekFirst();
            if (next instanceof Slot s) {
                if (s.reply == null) {
                    return;
                }
                c.queue.pollFirst();
                Message.Reply r = s.reply;
                s.reply = null;
                c.reply(r);
                continue;
            }
            List<Entry> rest = new ArrayList<>(c.queue);
            c.queue.clear();
            if (router.holding(c)) {
                // held already (or fenced): these came before everything held of this connection
                List<Message.Request> requests = new ArrayList<>();
                for (Entry e : rest) {
                    if (e instanceof Slot s) {
                        c.queue.addLast(s); // an early answer (answerLater): keeps its place before the held ones
                    } else {
                        requests.add(((Unrouted) e).request());
                    }
                }
                router.holdAhead(c, requests);
            } else {
                for (Entry e : rest) {
                    if (e instanceof Slot s) {
                        c.queue.addLast(s); // an early answer (answerLater) behind the requests: keeps its place
                    } else {
                        router.route(c, ((Unrouted) e).request());
                    }
                }
            }
            if (c.queue.isEmpty() || !(c.queue.peekFirst() instanceof Slot head) || head.reply == null) {
                return;
            }
        }
    }
}
