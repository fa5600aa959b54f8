package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Curator's {@link DistributedQueue} on ZooKeeper with a lock path (Curator's "guaranteed delivery": an item is
 * deleted only after the consumer returned, so it promises at-least-once), each worker through its own
 * {@link CuratorFramework}. Workers 0, 3, 6, ... {@code put} unique items (synchronous puts:
 * {@code putInBackground(false)}; any exception is indeterminate), the others consume: each
 * {@code consumeMessage} is a {@code dequeue} (OK). After healing a fresh Curator consumer drains the queue; items
 * it could not take in time are read raw (Curator's item format) and counted as still queued. {@link QueueCheck}
 * checks as for {@code queue}; Curator's puts are not protected against a lost response (a retried create may
 * enqueue an item twice), so duplicates are counted, not anomalies.
 */
public final class CuratorQueueWorkload implements Workload {

    static final String PATH = "/chaos/curator-queue/items";
    static final String LOCKS = "/chaos/curator-queue/locks";
    private static final long DRAIN_MS = 60_000;
    private static final long IDLE_MS = 100;

    private volatile String connectString;
    private volatile List<String> facts = List.of();

    @Override
    public String name() {
        return "curator-queue";
    }

    @Override
    public Set<String> writes() {
        return Set.of("enqueue", "dequeue");
    }

    private final Backlog backlog = new Backlog();

    @Override
    public void setup(Worker admin) {
        connectString = admin.connectString();
    }

    @Override
    public void work(Worker w) throws Exception {
        try (CuratorFramework curator = Curators.open(w.connectString())) {
            if (w.index() % 3 == 0) {
                DistributedQueue<String> queue = queue(curator, null);
                try {
                    int n = 0;
                    while (!w.stopped()) {
                        String item = "w" + w.index() + "-" + n++;
                        backlog.beforeOffer(w);
                        Blocking.call(w, "enqueue", PATH, item, () -> {
                            queue.put(item);
                            return item;
                        }, v -> v);
                    }
                } finally {
                    queue.close();
                }
            } else {
                DistributedQueue<String> queue = queue(curator, item -> {
                    backlog.taken();
                    w.history().add(new Op(w.index(), "dequeue", PATH, null, w.history().now(), w.history().now(),
                            Op.Status.OK, item, null));
                });
                try {
                    while (!w.stopped()) {
                        Thread.sleep(IDLE_MS); // Curator's threads consume; this one waits for the end of the run
                    }
                } finally {
                    queue.close();
                }
            }
        }
    }

    private static DistributedQueue<String> queue(CuratorFramework curator, Consumer<String> consume)
            throws Exception {
        QueueConsumer<String> consumer = consume == null ? null : new QueueConsumer<>() {
            @Override
            public void consumeMessage(String message) {
                consume.accept(message);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
                // the queue follows the connection itself
            }
        };
        DistributedQueue<String> q = QueueBuilder.builder(curator, consumer, STRINGS, PATH).lockPath(LOCKS)
                .putInBackground(false).buildQueue();
        q.start();
        return q;
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        List<String> drained = Collections.synchronizedList(new ArrayList<>());
        ZkClient reader = servers.on(0);
        try (CuratorFramework curator = Curators.open(connectString)) {
            DistributedQueue<String> queue = queue(curator, drained::add);
            try {
                long deadline = System.nanoTime() + DRAIN_MS * 1_000_000;
                while (System.nanoTime() < deadline && !remaining(reader).isEmpty()) {
                    Thread.sleep(IDLE_MS); // awaiting the drain (a condition, with a deadline)
                }
            } finally {
                queue.close();
            }
        }
        List<String> left = remaining(reader);
        List<String> all = new ArrayList<>(drained);
        for (String name : left) {
            try {
                all.addAll(decode(reader.getData(PATH + "/" + name).data()));
            } catch (ZkException.NoNode gone) {
                // consumed meanwhile: the drain recorded it
            }
        }
        QueueCheck.Outcome outcome = QueueCheck.check(name(), history.ops(), all, false);
        List<String> f = new ArrayList<>(outcome.facts());
        if (!left.isEmpty()) {
            f.add(name() + ": " + left.size() + " items not drained in " + DRAIN_MS / 1000 + " s, read raw");
        }
        facts = f;
        return outcome.anomalies();
    }

    private static List<String> remaining(ZkClient reader) throws Exception {
        return Retry.until("listing " + PATH, () -> {
            reader.sync(PATH);
            try {
                return reader.getChildren(PATH);
            } catch (ZkException.NoNode e) {
                return List.<String>of();
            }
        });
    }

    /** Curator's item format (its package-private {@code ItemSerializer}): version, then (1, length, bytes)*, 2. */
    static List<String> decode(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        if (in.readInt() != 0x00010001) {
            throw new IOException("not a Curator queue item");
        }
        List<String> items = new ArrayList<>();
        while (in.readByte() == 1) {
            byte[] b = new byte[in.readInt()];
            in.readFully(b);
            items.add(new String(b, StandardCharsets.UTF_8));
        }
        return items;
    }

    private static final QueueSerializer<String> STRINGS = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    @Override
    public List<String> facts() {
        return facts;
    }
}
