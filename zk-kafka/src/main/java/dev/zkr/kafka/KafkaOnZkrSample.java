package dev.zkr.kafka;

import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Kafka on zkr, runnable: a 3-server zkr ensemble on loopback, a Kafka 3.9.1 broker in ZooKeeper mode on it (its own
 * JVM), a topic, three messages produced, the zkr leader killed, three more produced, all six consumed; it prints
 * what Kafka keeps in zkr and what it did. Run it with Maven (zk-kafka/README.md): it needs the broker's class path.
 */
public final class KafkaOnZkrSample {

    private static final String TOPIC = "greetings";
    private static final int PARTITIONS = 3;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private KafkaOnZkrSample() {
    }

    public static void main(String[] args) throws Exception {
        run(System.out);
    }

    /** Runs the sample, printing to {@code out}. */
    static void run(PrintStream out) throws Exception {
        try (TestEnsemble zkr = TestEnsemble.builder().servers(3).start()) {
            out.println("zkr ensemble: " + zkr.connectString() + " (leader: server " + zkr.leader() + ")");
            try (ZkModeBroker broker = ZkModeBroker.start(0, zkr.connectString());
                 Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                         broker.bootstrapServers()))) {
                out.println("Kafka broker 0 started on " + broker.bootstrapServers() + " (its own JVM), "
                        + "zookeeper.connect=" + zkr.connectString() + ", ZooKeeper client "
                        + broker.zookeeperClientVersion());
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all()
                        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
                out.println("created topic " + TOPIC + " with " + PARTITIONS + " partitions");
                try (ZkClient zk = zkr.newClient()) {
                    for (String path : List.of("/brokers/ids/0", "/controller", "/controller_epoch",
                            "/brokers/topics/" + TOPIC)) {
                        out.println("  zkr " + path + " = "
                                + new String(zk.getData(path).data(), StandardCharsets.UTF_8));
                    }
                }
                Properties pp = new Properties();
                pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
                pp.put(ProducerConfig.ACKS_CONFIG, "all");
                pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                try (KafkaProducer<String, String> producer =
                             new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
                    produce(producer, out, 1, 3);
                    int leader = zkr.leader();
                    zkr.kill(leader);
                    out.println("killed the zkr leader (server " + leader + "); new leader: server " + zkr.leader());
                    produce(producer, out, 4, 6);
                }
                List<String> consumed = consume(broker.bootstrapServers(), 6);
                out.println("consumed " + consumed.size() + ": " + consumed);
            }
            out.println("broker stopped, zkr ensemble stopped");
        }
    }

    private static void produce(KafkaProducer<String, String> producer, PrintStream out, int from, int to)
            throws Exception {
        for (int i = from; i <= to; i++) {
            RecordMetadata m = producer.send(new ProducerRecord<>(TOPIC, "key-" + i, "hello " + i))
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            out.println("produced hello " + i + " -> partition " + m.partition() + " offset " + m.offset());
        }
    }

    private static List<String> consume(String bootstrap, int expected) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                parts.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(parts);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        values.sort(null);
        return values;
    }
}
