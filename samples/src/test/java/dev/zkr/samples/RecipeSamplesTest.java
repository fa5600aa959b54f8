package dev.zkr.samples;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

/** Runs every per-recipe sample once, so they keep working as the recipes change (they throw on a broken invariant). */
class RecipeSamplesTest {

    private static final String[] NO_ARGS = new String[0];

    @Test
    void leaderLatch() {
        assertDoesNotThrow(() -> LeaderLatchSample.main(NO_ARGS));
    }

    @Test
    void leaderSelector() {
        assertDoesNotThrow(() -> LeaderSelectorSample.main(NO_ARGS));
    }

    @Test
    void persistentNode() {
        assertDoesNotThrow(() -> PersistentNodeSample.main(NO_ARGS));
    }

    @Test
    void serviceDiscovery() {
        assertDoesNotThrow(() -> ServiceDiscoverySample.main(NO_ARGS));
    }

    @Test
    void lock() {
        assertDoesNotThrow(() -> LockSample.main(NO_ARGS));
    }

    @Test
    void leasedLock() {
        assertDoesNotThrow(() -> LeasedLockSample.main(NO_ARGS));
    }

    @Test
    void revocation() {
        assertDoesNotThrow(() -> RevocationSample.main(NO_ARGS));
    }

    @Test
    void multiLock() {
        assertDoesNotThrow(() -> MultiLockSample.main(NO_ARGS));
    }

    @Test
    void sharedValue() {
        assertDoesNotThrow(() -> SharedValueSample.main(NO_ARGS));
    }

    @Test
    void simpleBarrier() {
        assertDoesNotThrow(() -> SimpleBarrierSample.main(NO_ARGS));
    }

    @Test
    void nodeCache() {
        assertDoesNotThrow(() -> NodeCacheSample.main(NO_ARGS));
    }

    @Test
    void treeCache() {
        assertDoesNotThrow(() -> TreeCacheSample.main(NO_ARGS));
    }

    @Test
    void semaphore() {
        assertDoesNotThrow(() -> SemaphoreSample.main(NO_ARGS));
    }

    @Test
    void readWriteLock() {
        assertDoesNotThrow(() -> ReadWriteLockSample.main(NO_ARGS));
    }

    @Test
    void doubleBarrier() {
        assertDoesNotThrow(() -> DoubleBarrierSample.main(NO_ARGS));
    }

    @Test
    void group() {
        assertDoesNotThrow(() -> GroupSample.main(NO_ARGS));
    }

    @Test
    void counter() {
        assertDoesNotThrow(() -> CounterSample.main(NO_ARGS));
    }

    @Test
    void queue() {
        assertDoesNotThrow(() -> QueueSample.main(NO_ARGS));
    }

    @Test
    void orderedQueue() {
        assertDoesNotThrow(() -> OrderedQueueSample.main(NO_ARGS));
    }
}
