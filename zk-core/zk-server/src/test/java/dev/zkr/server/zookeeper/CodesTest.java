package dev.zkr.server.zookeeper;

import dev.zkr.client.ZkException;
import org.apache.zookeeper.ClientCnxn;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The numbers this layer writes are ZooKeeper's own: error codes, opcodes, reserved xids. */
class CodesTest {

    /** zkr's code ↔ ZooKeeper's of the same meaning (names differ only by underscores, and THROTTLEDOP). */
    private static final Map<ZkException.Code, KeeperException.Code> SAME = Map.ofEntries(
            Map.entry(ZkException.Code.OK, KeeperException.Code.OK),
            Map.entry(ZkException.Code.SYSTEM_ERROR, KeeperException.Code.SYSTEMERROR),
            Map.entry(ZkException.Code.RUNTIME_INCONSISTENCY, KeeperException.Code.RUNTIMEINCONSISTENCY),
            Map.entry(ZkException.Code.CONNECTION_LOSS, KeeperException.Code.CONNECTIONLOSS),
            Map.entry(ZkException.Code.MARSHALLING_ERROR, KeeperException.Code.MARSHALLINGERROR),
            Map.entry(ZkException.Code.UNIMPLEMENTED, KeeperException.Code.UNIMPLEMENTED),
            Map.entry(ZkException.Code.OPERATION_TIMEOUT, KeeperException.Code.OPERATIONTIMEOUT),
            Map.entry(ZkException.Code.BAD_ARGUMENTS, KeeperException.Code.BADARGUMENTS),
            Map.entry(ZkException.Code.NO_NODE, KeeperException.Code.NONODE),
            Map.entry(ZkException.Code.NO_AUTH, KeeperException.Code.NOAUTH),
            Map.entry(ZkException.Code.BAD_VERSION, KeeperException.Code.BADVERSION),
            Map.entry(ZkException.Code.NO_CHILDREN_FOR_EPHEMERALS, KeeperException.Code.NOCHILDRENFOREPHEMERALS),
            Map.entry(ZkException.Code.NODE_EXISTS, KeeperException.Code.NODEEXISTS),
            Map.entry(ZkException.Code.NOT_EMPTY, KeeperException.Code.NOTEMPTY),
            Map.entry(ZkException.Code.SESSION_EXPIRED, KeeperException.Code.SESSIONEXPIRED),
            Map.entry(ZkException.Code.INVALID_ACL, KeeperException.Code.INVALIDACL),
            Map.entry(ZkException.Code.AUTH_FAILED, KeeperException.Code.AUTHFAILED),
            Map.entry(ZkException.Code.SESSION_MOVED, KeeperException.Code.SESSIONMOVED),
            Map.entry(ZkException.Code.NO_WATCHER, KeeperException.Code.NOWATCHER),
            Map.entry(ZkException.Code.REQUEST_TIMEOUT, KeeperException.Code.REQUESTTIMEOUT),
            Map.entry(ZkException.Code.THROTTLED, KeeperException.Code.THROTTLEDOP),
            Map.entry(ZkException.Code.RECONFIG_IN_PROGRESS, KeeperException.Code.RECONFIGINPROGRESS),
            Map.entry(ZkException.Code.NEW_CONFIG_NO_QUORUM, KeeperException.Code.NEWCONFIGNOQUORUM),
            Map.entry(ZkException.Code.RECONFIG_DISABLED, KeeperException.Code.RECONFIGDISABLED));

    /** zkr's own codes, and the ZooKeeper code a ZooKeeper client gets for each. */
    private static final Map<ZkException.Code, KeeperException.Code> ZKR_ONLY = Map.of(
            ZkException.Code.INVALID_PATH, KeeperException.Code.BADARGUMENTS,
            ZkException.Code.DATA_TOO_LARGE, KeeperException.Code.BADARGUMENTS,
            ZkException.Code.TXN_TOO_LARGE, KeeperException.Code.BADARGUMENTS,
            ZkException.Code.TOO_MANY_EPHEMERALS, KeeperException.Code.QUOTAEXCEEDED,
            ZkException.Code.CLOSED, KeeperException.Code.SYSTEMERROR,
            ZkException.Code.INTERRUPTED, KeeperException.Code.SYSTEMERROR);

    @Test
    void everyZkrCodeBecomesZooKeepersCode() {
        assertEquals(ZkException.Code.values().length, SAME.size() + ZKR_ONLY.size(), "a code is in neither table");
        for (ZkException.Code code : ZkException.Code.values()) {
            KeeperException.Code expected = SAME.containsKey(code) ? SAME.get(code) : ZKR_ONLY.get(code);
            assertEquals(expected.intValue(), ErrorCodes.toZooKeeper(code), code.name());
            assertEquals(expected.intValue(), ErrorCodes.toZooKeeper(code.intValue()), code.name());
            if (SAME.containsKey(code)) {
                assertEquals(expected.intValue(), code.intValue(), code + ": zkr uses ZooKeeper's number");
            }
            assertNotNull(KeeperException.Code.get(ErrorCodes.toZooKeeper(code)));
        }
    }

    @Test
    void zooKeepersCodesZkrNeverAnswers() {
        Set<String> never = new TreeSet<>();
        for (KeeperException.Code k : KeeperException.Code.values()) {
            if (!SAME.containsValue(k)) {
                never.add(k.name());
            }
            // the way back: a ZooKeeper code zkr has is zkr's code of the same number
            if (SAME.containsValue(k)) {
                assertEquals(k.intValue(), ZkException.Code.of(k.intValue()).intValue(), k.name());
            }
        }
        // QUOTAEXCEEDED the translator answers itself; the others zkr has no use for yet
        assertEquals(new TreeSet<>(Set.of("APIERROR", "DATAINCONSISTENCY", "EPHEMERALONLOCALSESSION",
                "INVALIDCALLBACK", "NOTREADONLY", "QUOTAEXCEEDED", "SESSIONCLOSEDREQUIRESASLAUTH",
                "UNKNOWNSESSION")), never);
    }

    @Test
    void theConstantsAreZooKeepers() {
        assertEquals(KeeperException.Code.OK.intValue(), ErrorCodes.OK);
        assertEquals(KeeperException.Code.MARSHALLINGERROR.intValue(), ErrorCodes.MARSHALLING_ERROR);
        assertEquals(KeeperException.Code.UNIMPLEMENTED.intValue(), ErrorCodes.UNIMPLEMENTED);
        assertEquals(KeeperException.Code.BADARGUMENTS.intValue(), ErrorCodes.BAD_ARGUMENTS);
        assertEquals(KeeperException.Code.NONODE.intValue(), ErrorCodes.NO_NODE);
        assertEquals(KeeperException.Code.INVALIDACL.intValue(), ErrorCodes.INVALID_ACL);
        assertEquals(KeeperException.Code.AUTHFAILED.intValue(), ErrorCodes.AUTH_FAILED);
        assertEquals(KeeperException.Code.RECONFIGDISABLED.intValue(), ErrorCodes.RECONFIG_DISABLED);
        assertEquals(KeeperException.Code.QUOTAEXCEEDED.intValue(), ErrorCodes.QUOTA_EXCEEDED);
        // compile-time constants of ClientCnxn (inlined: the class is not loaded)
        assertEquals(ClientCnxn.NOTIFICATION_XID, OpCode.NOTIFICATION_XID);
        assertEquals(ClientCnxn.PING_XID, OpCode.PING_XID);
        assertEquals(ClientCnxn.AUTHPACKET_XID, OpCode.AUTH_XID);
        assertEquals(ClientCnxn.SET_WATCHES_XID, OpCode.SET_WATCHES_XID);
    }

    @Test
    void everyOpcodeIsZooKeepersWithItsName() throws Exception {
        int n = 0;
        for (Field f : ZooDefs.OpCode.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                int value = f.getInt(null);
                assertEquals(f.getName(), OpCode.name(value), "opcode " + value);
                n++;
            }
        }
        assertEquals(33, n, "ZooKeeper 3.9's opcodes, every one named here");
    }
}
