package dev.zkr.tree;

import dev.zkr.client.EnsembleMember;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The consensus core's look at every appended record ({@link TxnCodec#membershipOf}): a membership record is found
 * whatever its header's format, the acknowledgement a ZooKeeper client's write (or an exactly-once one) carries
 * included; any other txn is not one.
 */
class TxnCodecMembershipTest {

    private static final Txn.Membership MEMBERS = new Txn.Membership(List.of(
            new EnsembleMember(1, EnsembleMember.Role.VOTER, "127.0.0.1", 2001, 3001),
            new EnsembleMember(2, EnsembleMember.Role.LEARNER, "127.0.0.1", 2002, 3002)));

    @Test
    void aMembershipRecordIsFoundInEveryHeaderFormat() {
        TxnHeader server = new TxnHeader(0x100000002L, 5, 0, TxnHeader.NO_XID);
        TxnHeader client = new TxnHeader(0x100000002L, 5, 0x77, 9);
        TxnHeader acked = new TxnHeader(0x100000002L, 5, 0x77, 9, 9); // a ZooKeeper client's write: acked = its xid
        for (TxnHeader h : List.of(server, client, acked)) {
            assertEquals(MEMBERS, TxnCodec.membershipOf(TxnCodec.encode(h, MEMBERS)), h.toString());
            assertNull(TxnCodec.membershipOf(TxnCodec.encode(h, new Txn.SetData("/a", new byte[40], 1))),
                    h.toString());
        }
        assertNull(TxnCodec.membershipOf(new byte[0]));
    }
}
