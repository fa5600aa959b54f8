package dev.zkr.kafka;

import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two Kafka 3.9 brokers in ZooKeeper mode on a 3-server zkr ensemble: a topic of several partitions with two replicas
 * each, 10,000 messages produced with acks=all and idempotence while the zkr leader is killed, then a server holding a
 * broker's session, the brokers' registrations and controller state in zkr unchanged by the failovers, the controller
 * still able to write to zkr (a second topic), and every
 * acknowledged message consumed, once.
 */
class KafkaOnZkrIT {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;
    /** Brokers, and replicas of each partition. */
    private static final short BROKERS = 2;
    private static final int MESSAGES = 10_000;
    /** The zkr leader is killed when this many messages are acknowledged, half of them still to be sent. */
    private static final int KILL_AFTER_ACKS = 2_500;
    /** A server holding a broker's session is killed when this many are acknowledged. */
    private static final int SECOND_KILL_AFTER_ACKS = 6_500;
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Kafka's own nodes in zkr whose data and Stat must survive the zkr failover unchanged. */
    private static final List<String> KAFKA_NODES = List.of("/controller", "/controller_epoch", "/brokers/ids/0",
            "/brokers/ids/1", "/brokers/topics/" + TOPIC, "/cluster/id");

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void everyAcknowledgedMessageIsConsumedAcrossAZkrLeaderKill() throws Exception {
        long start = System.nanoTime();
        try (TestEnsemble zkr = TestEnsemble.builder().servers(3).start();
             ZkModeBroker broker0 = ZkModeBroker.start(0, zkr.connectString());
             ZkModeBroker broker1 = ZkModeBroker.start(1, zkr.connectString());
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker0.bootstrapServers() + "," + broker1.bootstrapServers()))) {
            String bootstrap = broker0.bootstrapServers() + "," + broker1.bootstrapServers();
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, BROKERS))).all()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertLeaders(admin, TOPIC, PARTITIONS);

            String brokerServersAtStart = serversWithClients(zkr);
            Map<String, NodeData> before;
            try (ZkClient zk = zkr.newClient()) {
                before = read(zk, KAFKA_NODES);
            }
            long session0 = before.get("/brokers/ids/0").stat().ephemeralOwner();
            long session1 = before.get("/brokers/ids/1").stat().ephemeralOwner();
            assertNotEquals(0, session0, "broker 0's registration is ephemeral");
            assertNotEquals(0, session1, "broker 1's registration is ephemeral");
            assertNotEquals(session0, session1);
            long controllerSession = before.get("/controller").stat().ephemeralOwner();
            assertTrue(controllerSession == session0 || controllerSession == session1,
                    "a broker is the controller, in its session");
            String controller = new String(before.get("/controller").data(), StandardCharsets.UTF_8)
                    .replaceAll(".*\"brokerid\":(\\d+).*", "$1");

            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "4096");
            pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
            Set<String> acked = ConcurrentHashMap.newKeySet();
            Map<String, Exception> failed = new ConcurrentHashMap<>();
            AtomicInteger sent = new AtomicInteger();
            // two disruptions while producing, each when that many messages are acknowledged and more are in flight:
            // the zkr leader is killed (and restarted), then a server holding a broker's ZooKeeper session
            Kill leaderKill = new Kill("zkr leader", KILL_AFTER_ACKS, zkr::leader);
            Kill sessionKill = new Kill("server of a broker's session", SECOND_KILL_AFTER_ACKS,
                    () -> serverWithClients(zkr));
            long produceStart = System.nanoTime();
            long produceNanos;
            Map<String, Double> producerMetrics;
            try (KafkaProducer<String, String> producer =
                         new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
                CompletableFuture<Void> disruptions = CompletableFuture.runAsync(() -> {
                    leaderKill.run(zkr, acked, sent);
                    sessionKill.run(zkr, acked, sent);
                });
                List<CompletableFuture<Void>> results = new ArrayList<>(MESSAGES);
                for (int i = 0; i < MESSAGES; i++) {
                    if (i == MESSAGES / 2) {
                        // the rest is sent once the zkr leader is dead, while the survivors elect a new one
                        leaderKill.done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    } else if (i == MESSAGES * 4 / 5) {
                        sessionKill.done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    }
                    String key = "m-" + i;
                    CompletableFuture<Void> result = new CompletableFuture<>();
                    producer.send(new ProducerRecord<>(TOPIC, key, "value of " + key), (metadata, error) -> {
                        if (error == null) {
                            acked.add(key);
                            leaderKill.acked(acked.size());
                            sessionKill.acked(acked.size());
                        } else {
                            failed.put(key, error);
                        }
                        result.complete(null);
                    });
                    sent.incrementAndGet();
                    results.add(result);
                }
                producer.flush();
                CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
                        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
                produceNanos = System.nanoTime() - produceStart;
                disruptions.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                producerMetrics = metrics(producer.metrics(), "record-retry-total", "record-error-total",
                        "record-send-total");
            }

            // a leader again; the brokers' sessions, registrations and controllership are the same as before
            int finalLeader = zkr.leader();
            ZkClient zk = zkr.newClient();
            Map<String, NodeData> after = read(zk, KAFKA_NODES);
            for (String path : KAFKA_NODES) {
                assertEquals(new String(before.get(path).data(), StandardCharsets.UTF_8),
                        new String(after.get(path).data(), StandardCharsets.UTF_8), path + " data");
                assertEquals(before.get(path).stat(), after.get(path).stat(), path + " Stat");
            }

            // the idempotent producer's id came from a block the controller allocated in zkr (a versioned setData)
            NodeData idBlock = zk.getData("/latest_producer_id_block");
            assertTrue(new String(idBlock.data(), StandardCharsets.UTF_8).contains("\"broker\":"),
                    "/latest_producer_id_block: " + new String(idBlock.data(), StandardCharsets.UTF_8));

            // the broker still writes to zkr: a topic created after the kill, through the new leader
            admin.createTopics(List.of(new NewTopic("after-kill", 2, BROKERS))).all()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertLeaders(admin, "after-kill", 2);
            assertTrue(zk.exists("/brokers/topics/after-kill") != null, "the new topic is in zkr");

            long consumeStart = System.nanoTime();
            Map<String, Integer> consumed = consumeAll(bootstrap);
            long consumeNanos = System.nanoTime() - consumeStart;

            Set<String> missing = new HashSet<>(acked);
            missing.removeAll(consumed.keySet());
            long duplicates = consumed.values().stream().filter(n -> n > 1).count();
            System.out.printf("Kafka on zkr: %d messages sent, %d acknowledged, %d failed, %d consumed (%d distinct, "
                            + "%d duplicated, %d acknowledged missing); %d brokers, %d replicas per partition, "
                            + "controller broker %s; brokers' ZooKeeper client %s, sessions 0x%x and 0x%x on servers %s "
                            + "at start; %s; %s; leader at the end: server %d; controller epoch %s unchanged; "
                            + "producer metrics %s; produce %d ms, consume %d ms, whole test %d ms%n",
                    sent.get(), acked.size(), failed.size(), consumed.values().stream().mapToInt(n -> n).sum(),
                    consumed.size(), duplicates, missing.size(), BROKERS, BROKERS, controller,
                    broker0.zookeeperClientVersion(), session0, session1, brokerServersAtStart, leaderKill,
                    sessionKill, finalLeader, new String(after.get("/controller_epoch").data(), StandardCharsets.UTF_8),
                    producerMetrics, produceNanos / 1_000_000, consumeNanos / 1_000_000,
                    (System.nanoTime() - start) / 1_000_000);
            assertEquals(Set.of(), missing, "acknowledged messages not consumed");
            assertEquals(0, duplicates, "messages consumed twice (idempotent producer)");
            assertEquals(MESSAGES, acked.size() + failed.size());
            assertEquals(Map.of(), failed, "messages not acknowledged");
        }
    }

    /**
     * Checks that every partition of the topic has a leader: in ZooKeeper mode the broker answers CreateTopics only
     * once the controller has elected them (through zkr) and its metadata cache has them.
     */
    static void assertLeaders(Admin admin, String topic, int partitions) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(WAIT.toSeconds(), TimeUnit.SECONDS).get(topic);
        assertEquals(partitions, d.partitions().size(), topic + ": " + d);
        assertTrue(d.partitions().stream().allMatch(p -> p.leader() != null && p.replicas().size() == BROKERS),
                "partitions of " + topic + " without a leader or " + BROKERS + " replicas: " + d);
    }

    /**
     * Reads every partition of {@link #TOPIC} from the beginning to its end offset (or until {@link #WAIT} has
     * passed): each key and how many times it was read.
     */
    private static Map<String, Integer> consumeAll(String bootstrap) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, Integer> seen = new HashMap<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                parts.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, WAIT);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline
                    && parts.stream().anyMatch(tp -> consumer.position(tp, WAIT) < end.get(tp))) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    seen.merge(r.key(), 1, Integer::sum);
                }
            }
        }
        return seen;
    }

    private static Map<String, NodeData> read(ZkClient zk, List<String> paths) {
        Map<String, NodeData> m = new HashMap<>();
        for (String path : paths) {
            m.put(path, zk.getData(path));
        }
        return m;
    }

    /** The servers holding client connections, as {@code server(connections)}. */
    private static String serversWithClients(TestEnsemble zkr) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < zkr.size(); i++) {
            if (zkr.isRunning(i) && zkr.server(i).clientConnections() > 0) {
                sb.append(sb.length() == 0 ? "" : ",").append(i).append('(').append(zkr.server(i).clientConnections())
                        .append(')');
            }
        }
        return sb.toString();
    }

    /**
     * A running server holding a broker's ZooKeeper connection (while only the brokers are connected: the one with
     * the most, the lowest first), waiting up to {@link #WAIT} for one (after its server died, a broker's ZooKeeper
     * client reconnects after a back-off).
     */
    private static int serverWithClients(TestEnsemble zkr) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            int found = -1;
            int most = 0;
            for (int i = 0; i < zkr.size(); i++) {
                int n = zkr.isRunning(i) ? zkr.server(i).clientConnections() : 0;
                if (n > most) {
                    found = i;
                    most = n;
                }
            }
            if (found >= 0) {
                return found;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no server has a client connection after " + WAIT);
            }
            LockSupport.parkNanos(2_000_000); // polling the servers' connection counts (no event for them)
        }
    }

    /**
     * A zkr server killed once {@code afterAcks} messages are acknowledged, then restarted: which server, and how many
     * messages were sent and acknowledged at the kill.
     */
    private static final class Kill {
        final String what;
        final int afterAcks;
        final java.util.function.IntSupplier target;
        final CountDownLatch reached = new CountDownLatch(1);
        final CompletableFuture<Void> done = new CompletableFuture<>();
        volatile int server = -1;
        volatile int sentAtKill;
        volatile int ackedAtKill;
        volatile long electionMillis;
        volatile int leaderAfter = -1;

        Kill(String what, int afterAcks, java.util.function.IntSupplier target) {
            this.what = what;
            this.afterAcks = afterAcks;
            this.target = target;
        }

        void acked(int count) {
            if (count >= afterAcks) {
                reached.countDown();
            }
        }

        void run(TestEnsemble zkr, Set<String> acked, AtomicInteger sent) {
            try {
                if (!reached.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("only " + acked.size() + " acks after " + WAIT);
                }
                server = target.getAsInt();
                sentAtKill = sent.get();
                ackedAtKill = acked.size();
                long t0 = System.nanoTime();
                zkr.kill(server);
                leaderAfter = zkr.leader(); // waits for a leader among the survivors
                electionMillis = (System.nanoTime() - t0) / 1_000_000;
                zkr.restart(server);
                done.complete(null);
            } catch (RuntimeException | InterruptedException e) {
                done.completeExceptionally(e);
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String toString() {
            return what + " (server " + server + ") killed after " + sentAtKill + " sent and " + ackedAtKill
                    + " acknowledged, leader then server " + leaderAfter + " (" + electionMillis
                    + " ms after the kill), restarted";
        }
    }

    private static Map<String, Double> metrics(Map<MetricName, ? extends Metric> metrics, String... names) {
        Map<String, Double> m = new java.util.TreeMap<>();
        Set<String> wanted = Set.of(names);
        metrics.forEach((name, metric) -> {
            if (wanted.contains(name.name()) && "producer-metrics".equals(name.group())) {
                m.put(name.name(), ((Number) metric.metricValue()).doubleValue());
            }
        });
        return m;
    }
}
