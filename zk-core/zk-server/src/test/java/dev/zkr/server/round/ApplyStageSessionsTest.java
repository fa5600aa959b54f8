package dev.zkr.server.round;

import dev.zkr.server.ServerConfig;
import dev.zkr.session.SessionTable;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;
import dev.zkr.tree.TxnPreparer;
import dev.zkr.tree.WatchTable;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sessions come from applied txns: a CreateSession / CloseSession txn that this server did not sequence (as a
 * follower applies the leader's) registers and forgets the session just as one it sequenced.
 */
class ApplyStageSessionsTest {

    private final DataTree tree = new DataTree();
    private final SessionTable sessions = new SessionTable(SessionTable.Config.ofTick(1, 100), 0, new byte[32]);
    private final WatchTable watches = new WatchTable();
    private final SessionGate gate = new SessionGate(ServerConfig.builder(Path.of("unused")).build(), sessions, tree,
            watches);
    private final ApplyStage apply = new ApplyStage(tree,
            new PrepStage(new TxnPreparer(tree), TxnClock.system(), 1, 0), watches, gate);

    @Test
    void appliedSessionTxnsRegisterAndForgetTheSession() {
        byte[] password = {1, 2, 3};
        apply.apply(new TxnHeader(1, 1_000, 0x42, 0), new Txn.CreateSession(0x42, 4_000, password), 5_000);
        assertTrue(sessions.isActive(0x42));
        assertTrue(sessions.checkPassword(0x42, password));
        assertEquals(4_000, sessions.timeoutOf(0x42));
        assertEquals(9_000, sessions.deadlineOf(0x42), "the deadline counts from the apply");
        watches.addDataWatch(0x42, "/");

        apply.apply(new TxnHeader(2, 2_000, 0x42, 0), new Txn.CloseSession(0x42), 6_000);
        assertFalse(sessions.isActive(0x42));
        assertEquals(0, gate.sessionCount());
        assertEquals(0, watches.size(), "the closed session's watches go with it");
    }
}
