package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.AcknowledgedIdQueue;
import dev.zkr.recipes.DistributedDelayQueue;
import dev.zkr.recipes.DistributedPriorityQueue;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.QueueSerializer;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ordered queues on a server whose clock is ten minutes behind the clients' (as if the clocks had drifted apart):
 * a priority queue serves urgent jobs first; a delay queue holds a retry for a second of the server's time (a
 * consumer going by its own clock would take it at once); an id queue withdraws a cancelled order, but not one a
 * worker already holds. Consumers wait with {@code takeAsync()}, holding no thread.
 */
public final class OrderedQueueSample {

    private static final QueueSerializer<String> TEXT = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] data) {
            return new String(data, StandardCharsets.UTF_8);
        }
    };

    public static void main(String[] args) throws Exception {
        Samples.quietLogs();
        long behind = TimeUnit.MINUTES.toMillis(10);
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1)
                .configure(b -> b.wallClock(() -> System.currentTimeMillis() - behind)).start()) {
            ZkClient client = ensemble.newClient();
            Recipes recipes = Recipes.using(client);

            DistributedPriorityQueue<String> jobs = recipes.queue("/jobs").serializer(TEXT).priority().build();
            jobs.offer("nightly report", 10);
            jobs.offer("resize images", 5);
            jobs.offer("page the on-call", 0);
            jobs.offer("rebuild index", 5);
            List<String> order = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                order.add(jobs.takeAsync().get(10, TimeUnit.SECONDS));
            }
            Samples.say("priority queue serves %s", order);
            check(order.equals(List.of("page the on-call", "resize images", "rebuild index", "nightly report")),
                    "priority order");
            jobs.close();

            DistributedDelayQueue<String> retries = recipes.queue("/retries").serializer(TEXT).delay().build();
            long offered = System.nanoTime();
            retries.offer("retry upload", Duration.ofSeconds(1));
            CompletableFuture<String> retry = retries.takeAsync();
            Samples.say("a retry is due in 1 s of the server's time (its clock is 10 minutes behind ours)");
            check(retries.poll(Duration.ofMillis(300)).isEmpty(), "nothing due yet");
            String due = retry.get(10, TimeUnit.SECONDS);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - offered);
            Samples.say("took '%s' after %d ms", due, waited);
            check(waited >= 900, "not taken early"); // the server's and our monotonic clocks run at one rate
            retries.close();

            AcknowledgedIdQueue<String> orders = recipes.queue("/orders").serializer(TEXT).ids().buildAcknowledged();
            orders.offer("order-1", "ship 1 lamp");
            orders.offer("order-2", "ship 2 chairs");
            orders.offer("order-3", "ship 3 tables");
            AcknowledgedIdQueue<String> worker = Recipes.using(ensemble.newClient()).queue("/orders").serializer(TEXT)
                    .ids().buildAcknowledged();
            QueueItem<String> held = worker.takeAsync().get(10, TimeUnit.SECONDS);
            Samples.say("a worker holds '%s'", held.value());
            int first = orders.remove("order-1");
            int second = orders.remove("order-2");
            Samples.say("cancel order-1 (held by the worker): %d removed; cancel order-2: %d removed", first, second);
            check(first == 0 && second == 1, "a held order is not removed, a queued one is");
            Samples.say("worker acks '%s': %s", held.value(), held.ack());
            QueueItem<String> next = worker.takeAsync().get(10, TimeUnit.SECONDS);
            Samples.say("worker takes '%s', ack: %s; queue size %d", next.value(), next.ack(), orders.size());
            check(orders.size() == 0, "all done");
            worker.close();
            orders.close();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("sample went wrong: " + what);
        }
    }
}
