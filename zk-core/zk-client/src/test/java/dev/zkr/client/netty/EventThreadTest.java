package dev.zkr.client.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link EventThread#idle()} lets the I/O thread complete a blocking call itself: it must never be true while a task
 * submitted before is queued or running, also when the thread is just waking up for it.
 */
class EventThreadTest {

    @Test
    void idleIsFalseUntilEveryTaskSubmittedHasRun() throws Exception {
        EventThread thread = new EventThread("event-thread-test");
        try {
            int early = 0;
            for (int i = 0; i < 100_000; i++) {
                while (!thread.idle()) {
                    Thread.onSpinWait(); // parked, or about to park: the next task wakes it up
                }
                AtomicBoolean ran = new AtomicBoolean();
                thread.execute(() -> ran.set(true));
                for (int k = 0; k < 20; k++) {
                    if (thread.idle() && !ran.get()) {
                        early++;
                        break;
                    }
                }
            }
            assertEquals(0, early, "idle() was true before a submitted task had run");

            CountDownLatch release = new CountDownLatch(1);
            thread.execute(() -> {
                try {
                    release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(!thread.idle(), "idle while a task runs");
            release.countDown();
        } finally {
            thread.shutdown(5, TimeUnit.SECONDS);
        }
    }
}
