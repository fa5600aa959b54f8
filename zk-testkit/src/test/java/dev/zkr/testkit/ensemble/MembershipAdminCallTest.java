package dev.zkr.testkit.ensemble;

import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.EnsembleMember;
import dev.zkr.client.MembershipChange;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.zkr.testkit.ensemble.Ensembles.digestClient;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.settledLeader;
import static dev.zkr.testkit.ensemble.Ensembles.syncedRead;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * zkr's client calls for the membership (docs/membership.md): {@code members()} on any member, {@code reconfig()}
 * for the superuser only, forwarded to the leader from a follower and answered once committed with the members after
 * it; a removed member that keeps running disrupts nothing; a standalone server refuses changes.
 */
@Timeout(120)
class MembershipAdminCallTest {

    private static final byte[] SUPER = "super:admin".getBytes(StandardCharsets.UTF_8);

    @Test
    void theSuperuserRemovesAMemberThroughAFollowerAndTheRemovedOneDisruptsNothing() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).superDigest(Acls.generateDigest("super:admin"))
                .start()) {
            int leader = settledLeader(e);
            int follower = others(3, leader)[0];
            int removed = others(3, leader)[1];
            ZkClient anyone = digestClient(e, follower, null);
            List<EnsembleMember> members = anyone.members();
            assertEquals(List.of(1, 2, 3), members.stream().map(EnsembleMember::id).toList());
            assertTrue(members.stream().allMatch(m -> m.role() == EnsembleMember.Role.VOTER), members.toString());
            assertEquals(e.port(follower), members.get(follower).clientPort());

            assertThrows(ZkException.NoAuth.class, () -> anyone.reconfig(MembershipChange.remove(removed + 1)));
            ZkClient admin = digestClient(e, follower, SUPER);
            assertThrows(ZkException.BadArguments.class, () -> admin.reconfig(MembershipChange.remove(9)));
            assertThrows(ZkException.BadArguments.class, () -> admin.reconfig(MembershipChange.promote(removed + 1)));

            // writes first: the admin's connection then sends its acknowledgement with every write, the reconfig
            // included (a record of that format was once applied by the tree and never put in force)
            admin.create("/by-admin-1", new byte[0], CreateMode.PERSISTENT);
            admin.create("/by-admin-2", new byte[0], CreateMode.PERSISTENT);
            List<EnsembleMember> after = admin.reconfig(MembershipChange.remove(removed + 1));
            assertEquals(List.of(leader, follower).stream().sorted().toList(), e.voters(), "in force in consensus");
            assertEquals(List.of(leader + 1, follower + 1).stream().sorted().toList(),
                    after.stream().map(EnsembleMember::id).toList());
            assertEquals(after, digestClient(e, leader, null).members(), "the leader applied it too");
            assertEquals(after, anyone.members(), "the follower answered once it applied it");

            // the removed server keeps running: it never campaigns, and the two voters keep serving
            long epoch = e.server(leader).epoch();
            ZkClient writer = digestClient(e, follower, null);
            for (int i = 0; i < 50; i++) {
                writer.create("/w" + i, new byte[] {(byte) i}, CreateMode.PERSISTENT);
            }
            assertArrayEquals(new byte[] {49}, syncedRead(e, leader, "/w49").data());
            assertEquals(epoch, e.server(leader).epoch(), "no election since the removal");
            assertTrue(e.server(leader).isLeading());
        }
    }

    @Test
    void aStandaloneServerHasNoMembersAndRefusesChanges() {
        try (TestEnsemble e = TestEnsemble.builder().superDigest(Acls.generateDigest("super:admin")).start()) {
            ZkClient admin = digestClient(e, 0, SUPER);
            assertEquals(List.of(), admin.members());
            assertThrows(ZkException.ReconfigDisabled.class, () -> admin.reconfig(MembershipChange.remove(1)));
        }
    }
}
