package dev.zkr.server.replication;

import dev.zkr.client.EnsembleMember;
import dev.zkr.client.EnsembleMember.Role;
import dev.zkr.consensus.Membership;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's membership codec and address book ({@link Members}). */
class MembersTest {

    private static EnsembleMember m(int id, Role role, String host, int peer) {
        return new EnsembleMember(id, role, host, peer, 2181);
    }

    @Test
    void aRecordDecodesAsVotersAndLearnersAndOtherTxnsAsNothing() {
        Members book = new Members(List.of(m(1, Role.VOTER, "a", 1), m(2, Role.VOTER, "b", 2)));
        Txn.Membership record = new Txn.Membership(List.of(m(1, Role.VOTER, "a", 1), m(2, Role.VOTER, "b", 2),
                m(3, Role.LEARNER, "c", 3), m(4, Role.OBSERVER, "d", 4)));
        byte[] payload = TxnCodec.encode(new TxnHeader(7, 0, 0, TxnHeader.NO_XID), record);
        assertEquals(new Membership(List.of(1, 2), List.of(3, 4)), book.decode(payload));
        assertNull(book.decode(TxnCodec.encode(new TxnHeader(8, 0, 0, TxnHeader.NO_XID), new Txn.NewEpoch(1, 1))));
        assertEquals(record, book.record(new Membership(List.of(1, 2), List.of(3, 4))), "roles kept: 4 an observer");
        assertTrue(book.wasMember(4));
        assertFalse(book.wasMember(5));
        assertThrows(UnsupportedOperationException.class, () -> book.encode(Membership.ofVoters(List.of(1))));
    }

    @Test
    void thisServersLinesWinOverTheAddressesARecordCarries() {
        // server 2 reaches server 1 through its own address for it (a proxy, NAT); the leader's record names another
        Members book = new Members(List.of(m(1, Role.VOTER, "proxy-of-1", 9001), m(2, Role.VOTER, "b", 2)));
        book.learn(new Txn.Membership(List.of(m(1, Role.VOTER, "leaders-view-of-1", 1), m(2, Role.VOTER, "b", 2),
                m(3, Role.LEARNER, "c", 3))));
        Map<Integer, InetSocketAddress> peers = book.peerAddresses(List.of(1, 2, 3));
        assertEquals(InetSocketAddress.createUnresolved("proxy-of-1", 9001).getHostString(),
                peers.get(1).getHostString());
        assertEquals(9001, peers.get(1).getPort());
        assertEquals("c", peers.get(3).getHostString(), "a member its lines do not name: the record's address");
        assertEquals(Role.LEARNER, book.member(3).role());
    }
}
