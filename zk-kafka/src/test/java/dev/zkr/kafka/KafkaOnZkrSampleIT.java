package dev.zkr.kafka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sample runs and does what it prints: six messages produced across a zkr leader kill, six consumed. */
class KafkaOnZkrSampleIT {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void sampleProducesAndConsumesAcrossALeaderKill() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            KafkaOnZkrSample.run(out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(output);
        assertTrue(output.contains("ZooKeeper client 3.8.4"), output);
        assertTrue(output.contains("created topic greetings with 3 partitions"), output);
        assertTrue(output.matches("(?s).*zkr /brokers/ids/0 = \\{.*\"endpoints\":\\[\"PLAINTEXT://127\\.0\\.0\\.1:.*"),
                output);
        assertTrue(output.contains("zkr /controller_epoch = 1"), output);
        assertTrue(output.contains("killed the zkr leader"), output);
        assertTrue(output.contains("consumed 6: [hello 1, hello 2, hello 3, hello 4, hello 5, hello 6]"), output);
    }
}
