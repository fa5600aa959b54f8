package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ArrivalsTest {

    @Test
    void theLastCacheToSeeTheWriteGivesTheTime() throws InterruptedException {
        Arrivals a = new Arrivals(3);
        a.expect(0);
        a.seen(1, 0, 10);
        a.seen(0, 0, 30);
        a.seen(2, 0, 20);
        assertEquals(20, a.await(0, Duration.ZERO));
    }

    @Test
    void aCacheCountsOnceAndOtherWritesAreIgnored() {
        Arrivals a = new Arrivals(2);
        a.expect(5);
        a.seen(0, 5, 10);
        a.seen(0, 5, 11); // the same cache again: still one cache missing
        a.seen(1, 4, 12); // an older write
        a.seen(1, -1, 13); // data of no write
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.await(5, Duration.ZERO));
        assertEquals("1 of 2 caches did not see write 5 within PT0S", e.getMessage());
    }

    @Test
    void eachWriteStartsAfresh() throws InterruptedException {
        Arrivals a = new Arrivals(2);
        a.expect(0);
        a.seen(0, 0, 1);
        a.seen(1, 0, 2);
        assertEquals(2, a.await(0, Duration.ZERO));
        a.expect(1);
        a.seen(1, 0, 3); // late duplicate of write 0
        a.seen(0, 1, 4);
        a.seen(1, 1, 5);
        assertEquals(5, a.await(1, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> a.expect(1));
        assertThrows(IllegalStateException.class, () -> a.await(0, Duration.ZERO));
    }

    @Test
    void payloadCarriesTheWriteNumber() {
        assertEquals(100, CacheScenarios.payload(7).length);
        assertEquals(7, CacheScenarios.writeOf(CacheScenarios.payload(7)));
        assertEquals(-1, CacheScenarios.writeOf(CacheScenarios.payload(-1)));
        assertEquals(-1, CacheScenarios.writeOf(new byte[0]));
        assertEquals(-1, CacheScenarios.writeOf(null));
    }

    @Test
    void memoryTreesHaveOnePathLengthForEveryColumn() {
        String zkr = CacheScenarios.treeOf("/bench-zkr/r1");
        String curator = CacheScenarios.treeOf("/bench-zookeeper/r1");
        String zkrOnZk = CacheScenarios.treeOf("/bench-zkr-on-zookeeper/r1");
        assertEquals(zkr.length(), curator.length());
        assertEquals(zkr.length(), zkrOnZk.length());
        assertNotEquals(curator, zkrOnZk); // both on the ZooKeeper server
        assertNotEquals(curator, CacheScenarios.treeOf("/bench-zookeeper/r2"));
    }
}
