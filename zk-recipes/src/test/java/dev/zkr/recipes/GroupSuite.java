package dev.zkr.recipes;

import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GroupMembership: the live view converges, listeners see joins/leaves/crashes, rejoin after expiry, no leaks. */
public abstract class GroupSuite extends RecipeSuite {

    private GroupMembership join(ZkClient c, String p, String id) {
        return Recipes.using(c).group(p).memberId(id).data(id.getBytes(StandardCharsets.UTF_8)).join();
    }

    @Test
    void aLeaveWhoseDeleteResponseIsLostNeverDeletesTheNodeOfTheNextMemberOfThatId() throws Exception {
        String p = path("g-lost-delete");
        ZkClient ac = client();
        ZkClient bc = client();
        LostResponseClient flaky = new LostResponseClient(ac);
        GroupMembership a = join(flaky, p, "w");
        CompletableFuture<Void> bJoined = new CompletableFuture<>();
        flaky.loseNextDelete(bJoined); // a's delete goes through; a hears ConnectionLoss only once b is in as "w"
        Future<?> leaving = pool.submit(a::close);
        eventually("a's member node is gone", () -> bc.exists(p + "/w") == null);
        GroupMembership b = join(bc, p, "w");
        bJoined.complete(null);
        leaving.get(30, TimeUnit.SECONDS); // a's retried delete must see that the node is b's now
        assertEquals(1, flaky.lost());
        Stat node = bc.exists(p + "/w");
        assertNotNull(node, "a's retried delete removed b's member node");
        assertEquals(bc.sessionId(), node.ephemeralOwner());
        b.close();
        assertNoWatches(ac);
        assertNoWatches(bc);
    }

    @Test
    void viewConvergesAndListenersSeeJoinsAndLeaves() {
        String p = path("g");
        ZkClient c1 = client();
        GroupMembership g1 = join(c1, p, "w1");
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        g1.addListener(new GroupListener() {
            @Override
            public void memberJoined(Member m) {
                events.add("+" + m.id());
            }

            @Override
            public void memberLeft(Member m) {
                events.add("-" + m.id());
            }
        });
        assertEquals(List.of("w1"), g1.memberIds());
        assertArrayEquals("w1".getBytes(StandardCharsets.UTF_8), g1.members().get(0).data());
        ZkClient c2 = client();
        GroupMembership g2 = join(c2, p, "w2");
        ZkClient c3 = client();
        GroupMembership g3 = join(c3, p, "w3");
        eventually("g1 sees three", () -> g1.memberIds().equals(List.of("w1", "w2", "w3")));
        // each member's view follows its own watch: g2 converges too, not necessarily at the same moment as g1
        eventually("g2 sees three", () -> g2.memberIds().equals(List.of("w1", "w2", "w3")));
        g2.close();
        eventually("w2 left", () -> g1.memberIds().equals(List.of("w1", "w3")));
        c3.close(); // crash: the session ends
        eventually("w3 crashed", () -> g1.memberIds().equals(List.of("w1")));
        eventually("events", () -> events.containsAll(List.of("+w2", "+w3", "-w2", "-w3")));
        assertTrue(g1.isMember());
        g1.close();
        g1.close();
        assertNoWatches(c1);
        assertNoWatches(c2);
    }

    @Test
    void rejoinsAfterSessionExpiry() {
        String p = path("rejoin");
        ZkClient c1 = client();
        ZkClient c2 = client();
        GroupMembership g1 = join(c1, p, "a");
        GroupMembership g2 = join(c2, p, "b");
        List<LeaseState> self = Collections.synchronizedList(new ArrayList<>());
        g1.addListener(new GroupListener() {
            @Override
            public void selfChanged(LeaseState state) {
                self.add(state);
            }
        });
        long old = c1.sessionId();
        backend.expireSession(c1);
        eventually("a lost then rejoined", () -> self.contains(LeaseState.LOST) && g1.isMember()
                && c1.sessionId() != old);
        assertEquals(c1.sessionId(), c2.exists(p + "/a").ephemeralOwner());
        eventually("views converge", () -> g1.memberIds().equals(List.of("a", "b"))
                && g2.memberIds().equals(List.of("a", "b")));
        g1.close();
        g2.close();
        assertNoWatches(c1);
        assertNoWatches(c2);
    }

    @Test
    void lastMemberLeavingLetsTheGroupBeJoinedAgain() {
        String p = path("empty");
        ZkClient c1 = client();
        ZkClient c2 = client();
        GroupMembership g1 = join(c1, p, "a");
        GroupMembership g2 = join(c2, p, "b");
        g2.close();
        g1.close();
        GroupMembership again = join(c2, p, "c");
        assertEquals(List.of("c"), again.memberIds());
        again.close();
        assertNoWatches(c2);
    }
}
