package dev.zkr.server.round;

import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The round's flush: one task per event loop for all its connections, each connection's batches in order. */
class OutboxTest {

    /** An event loop that runs its tasks when told to, counting them. */
    private static final class Loop implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        int executed;

        @Override
        public void execute(Runnable task) {
            executed++;
            tasks.add(task);
        }

        void runAll() {
            Runnable r;
            while ((r = tasks.poll()) != null) {
                r.run();
            }
        }
    }

    /** A socket-like sink on a loop: records the batches it takes, and whether they came on its loop. */
    private static final class LoopSink implements Connection.Sink {
        final Loop loop;
        final List<List<Object>> taken = new ArrayList<>();
        int replies;

        LoopSink(Loop loop) {
            this.loop = loop;
        }

        @Override
        public void deliver(List<Object> batch, int replies) {
            loop.execute(() -> take(batch, replies));
        }

        @Override
        public Executor loop() {
            return loop;
        }

        @Override
        public void take(List<Object> batch, int replies) {
            taken.add(batch);
            this.replies += replies;
        }
    }

    /** A sink without a loop (the simulator's): handed its batch at once. */
    private static final class DirectSink implements Connection.Sink {
        final List<List<Object>> delivered = new ArrayList<>();

        @Override
        public void deliver(List<Object> batch, int replies) {
            delivered.add(batch);
        }
    }

    private static Message.Reply reply(int xid) {
        return Replies.ok(xid, 1, null);
    }

    @Test
    void aFanOutWakesEachLoopOnceAndEveryConnectionGetsItsBatch() {
        Outbox outbox = new Outbox();
        Loop a = new Loop();
        Loop b = new Loop();
        List<LoopSink> sinks = new ArrayList<>();
        List<Connection> connections = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            LoopSink s = new LoopSink(i % 2 == 0 ? a : b);
            sinks.add(s);
            connections.add(new Connection(s, outbox));
        }
        for (int i = 0; i < 9; i++) {
            connections.get(i).reply(reply(i));
        }
        outbox.flush();
        assertEquals(1, a.executed, "one task for the five connections of loop a");
        assertEquals(1, b.executed, "one task for the four connections of loop b");
        a.runAll();
        b.runAll();
        for (int i = 0; i < 9; i++) {
            assertEquals(List.of(List.of(reply(i))), sinks.get(i).taken, "connection " + i);
            assertEquals(1, sinks.get(i).replies);
        }
    }

    @Test
    void aHugeFanOutIsSplitIntoTasksOfBoundedSize() {
        Outbox outbox = new Outbox();
        Loop loop = new Loop();
        List<LoopSink> sinks = new ArrayList<>();
        int n = 2 * Outbox.CONNECTIONS_PER_TASK + 1;
        for (int i = 0; i < n; i++) {
            LoopSink s = new LoopSink(loop);
            sinks.add(s);
            new Connection(s, outbox).reply(reply(i));
        }
        outbox.flush();
        assertEquals(3, loop.executed);
        loop.runAll();
        for (int i = 0; i < n; i++) {
            assertEquals(List.of(List.of(reply(i))), sinks.get(i).taken, "connection " + i);
        }
    }

    @Test
    void batchesOfOneConnectionKeepTheirOrderAcrossRounds() {
        Outbox outbox = new Outbox();
        Loop loop = new Loop();
        LoopSink s1 = new LoopSink(loop);
        LoopSink s2 = new LoopSink(loop);
        Connection c1 = new Connection(s1, outbox);
        Connection c2 = new Connection(s2, outbox);
        c1.reply(reply(1));
        outbox.flush();                       // a round that touched one connection
        c1.reply(reply(2));
        c1.send(reply(3));
        c2.reply(reply(10));
        outbox.flush();                       // a round that touched two
        c1.reply(reply(4));
        outbox.flush();
        loop.runAll();
        assertEquals(List.of(List.of(reply(1)), List.of(reply(2), reply(3)), List.of(reply(4))), s1.taken);
        assertEquals(List.of(List.of(reply(10))), s2.taken);
        assertEquals(3, s1.replies, "the message sent with send() is not a reply");
    }

    @Test
    void sinksWithoutALoopAreHandedTheirBatchAtOnce() {
        Outbox outbox = new Outbox();
        DirectSink d1 = new DirectSink();
        DirectSink d2 = new DirectSink();
        Loop loop = new Loop();
        LoopSink s = new LoopSink(loop);
        Connection c1 = new Connection(d1, outbox);
        Connection c2 = new Connection(d2, outbox);
        Connection c3 = new Connection(s, outbox);
        c1.reply(reply(1));
        c2.reply(reply(2));
        c3.reply(reply(3));
        outbox.flush();
        assertEquals(List.of(List.of(reply(1))), d1.delivered);
        assertEquals(List.of(List.of(reply(2))), d2.delivered);
        assertEquals(1, loop.executed);
        loop.runAll();
        assertEquals(List.of(List.of(reply(3))), s.taken);
    }
}
