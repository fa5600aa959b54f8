package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.Recipes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * zkr's acknowledged queue ({@link AcknowledgedQueue}, through the worker's client: zkr's own, or
 * {@code ApacheZkClient} on ZooKeeper). Workers 0, 3, 6, ... offer unique items ({@code enqueue}); the others
 * poll, acknowledge, and record {@code dequeue} with {@code item@node} once {@code ack()} returned true (an ack
 * refused because the claim was lost is a FAIL: the item will be delivered again). After healing the queue is
 * drained through a fresh client and what is left counted as still queued; {@link QueueCheck} then checks that
 * every acknowledged offer was delivered at least once and nothing else was. The recipe promises at-least-once
 * delivery (so duplicates are counted, not anomalies) and exactly-once offers (one item in two queue nodes is an
 * anomaly).
 */
public final class QueueWorkload implements Workload {

    static final String PATH = "/chaos/queue";
    private static final Duration POLL = Duration.ofSeconds(1);
    private static final long DRAIN_MS = 60_000;

    private volatile List<String> facts = List.of();
    private final Backlog backlog = new Backlog();

    @Override
    public String name() {
        return "queue";
    }

    @Override
    public Set<String> writes() {
        return Set.of("enqueue", "dequeue");
    }

    @Override
    public void setup(Worker admin) {
        admin.client().create(PATH, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
    }

    @Override
    public void work(Worker w) {
        try (AcknowledgedQueue<byte[]> queue = Recipes.using(w.client()).queue(PATH).buildAcknowledged()) {
            int n = 0;
            while (!w.stopped()) {
                if (w.index() % 3 == 0) {
                    String item = "w" + w.index() + "-" + n++;
                    backlog.beforeOffer(w);
                    Blocking.call(w, "enqueue", PATH, item, () -> {
                        queue.offer(item.getBytes(StandardCharsets.UTF_8));
                        return item;
                    }, v -> v);
                } else {
                    consume(w, queue, backlog);
                }
            }
        }
    }

    private static void consume(Worker w, AcknowledgedQueue<byte[]> queue, Backlog backlog) {
        long invoke = w.history().now();
        Optional<QueueItem<byte[]>> taken;
        try {
            taken = queue.poll(POLL);
        } catch (RuntimeException e) {
            w.history().add(new Op(w.index(), "dequeue", PATH, null, invoke, w.history().now(), Op.Status.INFO, null,
                    e.getClass().getSimpleName()));
            return;
        }
        if (taken.isEmpty()) {
            return;
        }
        backlog.taken();
        QueueItem<byte[]> item = taken.get();
        String delivered = new String(item.value(), StandardCharsets.UTF_8) + "@" + item.id();
        Op.Status status;
        String error = null;
        try {
            status = item.ack() ? Op.Status.OK : Op.Status.FAIL;
            if (status == Op.Status.FAIL) {
                error = "ack refused: claim lost";
            }
        } catch (RuntimeException e) {
            status = Op.Status.INFO;
            error = e.getClass().getSimpleName();
        }
        w.history().add(new Op(w.index(), "dequeue", PATH, null, invoke, w.history().now(), status, delivered,
                error));
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        List<String> drained = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        ZkClient client = servers.on(0);
        try (AcknowledgedQueue<byte[]> queue = Recipes.using(client).queue(PATH).buildAcknowledged()) {
            long deadline = System.nanoTime() + DRAIN_MS * 1_000_000;
            while (System.nanoTime() < deadline) {
                Optional<QueueItem<byte[]>> item = queue.poll(POLL);
                if (item.isPresent()) {
                    if (!item.get().ack()) {
                        throw new IllegalStateException("drain: ack refused on a quiet ensemble: " + item.get().id());
                    }
                    drained.add(new String(item.get().value(), StandardCharsets.UTF_8) + "@" + item.get().id());
                } else if (queue.size() == 0) {
                    break;
                }
            }
        }
        // items a drain could not claim in time (claimed by a consumer whose claim outlived it) count as queued
        for (String name : Retry.until("listing " + PATH, () -> {
            client.sync(PATH);
            return client.getChildren(PATH);
        })) {
            if (!name.startsWith("claim-")) {
                try {
                    drained.add(new String(client.getData(PATH + "/" + name).data(), StandardCharsets.UTF_8) + "@"
                            + name);
                    notes.add(name);
                } catch (ZkException.NoNode gone) {
                    // acknowledged meanwhile
                }
            }
        }
        QueueCheck.Outcome outcome = QueueCheck.check(name(), history.ops(), drained, true);
        List<String> f = new ArrayList<>(outcome.facts());
        if (!notes.isEmpty()) {
            f.add(name() + ": " + notes.size() + " items still claimed after " + DRAIN_MS / 1000
                    + " s of draining, counted as queued");
        }
        facts = f;
        return outcome.anomalies();
    }

    @Override
    public List<String> facts() {
        return facts;
    }
}
