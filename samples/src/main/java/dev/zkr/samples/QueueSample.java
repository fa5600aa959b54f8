package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A queue with acknowledged delivery: a producer enqueues six jobs; a consumer takes one and crashes before the
 * ack (the server expires its session), so that job comes back; a second consumer then processes all six, each
 * acknowledged once done.
 */
public final class QueueSample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            AcknowledgedQueue<byte[]> producer = Recipes.using(ensemble.newClient()).queue("/jobs").buildAcknowledged();
            for (int i = 1; i <= 6; i++) {
                producer.offer(("job-" + i).getBytes(StandardCharsets.UTF_8));
            }
            Samples.say("enqueued 6 jobs; queue size %d", producer.size());

            ZkClient doomed = ensemble.newClient(b -> b.renewSessionOnExpiry(false));
            AcknowledgedQueue<byte[]> first = Recipes.using(doomed).queue("/jobs").buildAcknowledged();
            QueueItem<byte[]> taken = first.take();
            Samples.say("consumer-1 took %s ... and crashes before the ack", text(taken.value()));
            ensemble.expireSession(doomed.sessionId());

            AcknowledgedQueue<byte[]> second = Recipes.using(ensemble.newClient()).queue("/jobs").buildAcknowledged();
            while (true) {
                Optional<QueueItem<byte[]>> next = second.poll(Duration.ofMillis(500));
                if (next.isEmpty()) {
                    break;
                }
                try (QueueItem<byte[]> item = next.get()) {
                    Samples.say("consumer-2 processes %s, ack -> %s", text(item.value()), item.ack());
                }
            }
            Samples.say("queue size %d", producer.size());
            second.close();
            producer.close();
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
