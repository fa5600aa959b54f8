package dev.zkr.apache;

import dev.zkr.client.ZkException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mapping of ZooKeeper's result codes and event types to zkr's. */
class ConvertTest {

    @Test
    void everyZooKeeperCodeMapsAndSharedCodesKeepTheirValue() {
        Set<ZkException.Code> reached = EnumSet.noneOf(ZkException.Code.class);
        for (KeeperException.Code zk : KeeperException.Code.values()) {
            ZkException.Code zkr = Convert.code(zk);
            assertNotNull(zkr, zk.name());
            reached.add(zkr);
            ZkException.Code sameValue = ZkException.Code.of(zk.intValue());
            if (sameValue != ZkException.Code.SYSTEM_ERROR || zk.intValue() == -1) {
                assertEquals(sameValue, zkr, "ZooKeeper " + zk + " has zkr's code " + sameValue);
            }
            if (zk != KeeperException.Code.OK) {
                ZkException e = Convert.exception(zk.intValue(), "/p");
                assertEquals(zkr, e.code());
                assertEquals("/p", e.path());
            }
        }
        // every zkr code that ZooKeeper can produce is reached; the rest are zkr's own codes (client-side, or limits
        // of the zkr server)
        Set<ZkException.Code> clientSide = EnumSet.of(ZkException.Code.INVALID_PATH, ZkException.Code.DATA_TOO_LARGE,
                ZkException.Code.CLOSED, ZkException.Code.INTERRUPTED, ZkException.Code.TOO_MANY_EPHEMERALS,
                ZkException.Code.TXN_TOO_LARGE);
        for (ZkException.Code code : ZkException.Code.values()) {
            assertTrue(reached.contains(code) || clientSide.contains(code), code + " not reachable");
        }
    }

    @Test
    void unknownAndUnsharedCodesSayWhatZooKeeperReported() {
        ZkException unknown = Convert.exception(-9999, null);
        assertInstanceOf(ZkException.SystemError.class, unknown);
        assertTrue(unknown.getMessage().contains("-9999"), unknown.getMessage());
        ZkException quota = Convert.exception(KeeperException.Code.QUOTAEXCEEDED.intValue(), "/q");
        assertTrue(quota.getMessage().contains("QUOTAEXCEEDED"), quota.getMessage());
        assertInstanceOf(ZkException.SessionExpired.class,
                Convert.exception(KeeperException.Code.UNKNOWNSESSION.intValue(), null));
        assertInstanceOf(ZkException.SystemError.class, Convert.exception(0, null));
    }

    @Test
    void connectionEventsAreNotNodeEvents() {
        assertNull(Convert.eventType(EventType.None));
        for (EventType type : EventType.values()) {
            if (type != EventType.None) {
                assertNotNull(Convert.eventType(type), type.name());
            }
        }
    }
}
