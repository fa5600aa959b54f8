package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GroupMembership: the live view converges with every member's current data, listeners see joins/leaves/crashes/
 * data changes, our own node is kept (made again after deletion and expiry, with the latest data; another session's
 * node never touched), no leaks; one test per Curator {@code GroupMember} bug (named).
 */
public abstract class GroupSuite extends RecipeSuite {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Records a group's events as "+id", "-id", "~id=data" and "self:STATE", in order. */
    private static final class Recorder implements GroupListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void memberJoined(Member m) {
            events.add("+" + m.id());
        }

        @Override
        public void memberLeft(Member m) {
            events.add("-" + m.id());
        }

        @Override
        public void memberChanged(Member m) {
            events.add("~" + m.id() + "=" + new String(m.data(), StandardCharsets.UTF_8));
        }

        @Override
        public void selfChanged(LeaseState state) {
            events.add("self:" + state);
        }

        List<String> snapshot() {
            synchronized (events) {
                return List.copyOf(events);
            }
        }

        /** The events after the first occurrence of {@code first}, which must be followed by {@code then}. */
        boolean saw(String first, String then) {
            List<String> all = snapshot();
            int i = all.indexOf(first);
            return i >= 0 && all.subList(i + 1, all.size()).contains(then);
        }
    }

    /** True if the group's view shows the member with exactly this data. */
    private static boolean shows(GroupMembership g, String id, String data) {
        return g.members().stream().anyMatch(m -> m.id().equals(id) && Arrays.equals(m.data(), b(data)));
    }

    /** True if the node exists with exactly this data, owned by this session. */
    private static boolean holds(ZkClient observer, String path, String data, long owner) {
        try {
            observer.sync(path);
            NodeData d = observer.getData(path);
            return Arrays.equals(d.data(), b(data)) && d.stat().ephemeralOwner() == owner;
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            return false;
        }
    }

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

    @Test
    void ourNodeDeletedByOthersIsMadeAgainWithItsLatestData() {
        String p = path("deleted");
        ZkClient c1 = client();
        ZkClient c2 = client();
        ZkClient observer = client();
        GroupMembership g1 = join(c1, p, "a");
        Recorder self = new Recorder();
        g1.addListener(self);
        GroupMembership g2 = join(c2, p, "b");
        Recorder r2 = new Recorder();
        g2.addListener(r2);
        g1.setData(b("a2"));
        eventually("b sees a's new data", () -> shows(g2, "a", "a2"));
        for (int i = 0; i < 2; i++) {
            int seen = self.snapshot().size();
            observer.delete(p + "/a", -1);
            eventually("made again, ours, with a2", () -> holds(observer, p + "/a", "a2", c1.sessionId()));
            eventually("lost, then held again", () -> {
                List<String> after = self.snapshot().subList(seen, self.snapshot().size());
                int lost = after.indexOf("self:LOST");
                return lost >= 0 && after.subList(lost, after.size()).contains("self:HELD") && g1.isMember();
            });
        }
        eventually("b sees a with a2", () -> shows(g2, "a", "a2"));
        eventually("b told: a left and joined (a new node)", () -> r2.saw("~a=a2", "-a") && r2.saw("-a", "+a"));
        assertArrayEquals(b("a2"), g1.data());
        g1.close();
        g2.close();
        assertNoWatches(c1);
        assertNoWatches(c2);
    }

    @Test
    void ourNodeTakenByAnotherSessionIsLeftAloneUntilItGoes() {
        String p = path("taken");
        ZkClient c1 = client();
        ZkClient other = client();
        GroupMembership g1 = join(c1, p, "a");
        Recorder self = new Recorder();
        g1.addListener(self);
        // another session takes our name in one step: deletes our node and makes its own
        other.multi(List.of(Op.delete(p + "/a", -1), Op.create(p + "/a", b("theirs"), CreateMode.EPHEMERAL)));
        eventually("lost", () -> g1.state() == LeaseState.LOST);
        assertFalse(g1.isMember());
        // the name never left the children: only the node's new czxid tells the view it is another node
        eventually("the view tells: a left and joined", () -> self.saw("-a", "+a"));
        g1.setData(b("ours")); // kept for later: never written to their node
        other.setData(p + "/a", b("theirs2"), -1); // seen by g1's view after the keeper's look at the new data
        eventually("their data in our view", () -> shows(g1, "a", "theirs2"));
        Stat theirs = other.exists(p + "/a");
        assertEquals(other.sessionId(), theirs.ephemeralOwner());
        assertEquals(1, theirs.version(), "their node was written by them only");
        assertTrue(holds(other, p + "/a", "theirs2", other.sessionId()));
        ZkClient observer = client();
        other.close();
        eventually("ours again once theirs is gone", () -> holds(observer, p + "/a", "ours", c1.sessionId()));
        eventually("held", g1::isMember);
        eventually("told: lost, then held", () -> self.saw("self:LOST", "self:HELD")); // listeners run after
        g1.close();
        assertNoWatches(c1);
    }

    /**
     * CURATOR-267 (GroupMember's first version, and still 5.7.1): {@code getCurrentMembers()} always lists this
     * member, with its data, even while its node is gone. zkr's view lists what is there: built without rejoin, a
     * member whose session expired stays out (its node is not made again) and is not listed.
     */
    @Test
    void withoutRejoinAnExpiredMemberStaysOutAndIsNotListed_CURATOR_267() {
        String p = path("no-rejoin");
        ZkClient c1 = client();
        ZkClient c2 = client();
        ZkClient observer = client();
        GroupMembership g1 = Recipes.using(c1).group(p).memberId("a").rejoinAfterLost(false).join();
        GroupMembership g2 = join(c2, p, "b");
        // deletion by others within the session is undone even without rejoin
        observer.delete(p + "/a", -1);
        eventually("made again in the same session", () -> holds(observer, p + "/a", "", c1.sessionId()));
        long old = c1.sessionId();
        backend.expireSession(c1);
        eventually("lost, with a new session", () -> g1.state() == LeaseState.LOST && c1.sessionId() != old
                && c1.state().isConnected());
        GroupMembership g3 = join(client(), p, "c");
        // g1 sees c only through the watch its new session sets after the keeper's look at the new session
        eventually("g1 sees c, and not itself", () -> g1.memberIds().equals(List.of("b", "c")));
        observer.sync(p);
        assertNull(observer.exists(p + "/a"), "made again although built with rejoinAfterLost(false)");
        assertFalse(g1.isMember());
        assertEquals(LeaseState.LOST, g1.state());
        eventually("the others see a gone", () -> g2.memberIds().equals(List.of("b", "c")));
        g1.close();
        g2.close();
        g3.close();
        assertNoWatches(c1);
        assertNoWatches(c2);
    }

    /** CURATOR-241 for a member: its data set since joining survives expiry (not the join data again). */
    @Test
    void dataSetIsSeenByTheOthersAndKeptAcrossExpiry_CURATOR_241() {
        String p = path("data");
        ZkClient c1 = client();
        ZkClient c2 = client();
        GroupMembership g1 = join(c1, p, "a");
        GroupMembership g2 = join(c2, p, "b");
        Recorder r2 = new Recorder();
        g2.addListener(r2);
        g1.setData(b("a2"));
        eventually("b told of a's data", () -> r2.snapshot().contains("~a=a2") && shows(g2, "a", "a2"));
        eventually("a sees its own data", () -> shows(g1, "a", "a2"));
        long old = c1.sessionId();
        backend.expireSession(c1);
        eventually("a rejoined with a2", () -> c1.sessionId() != old && g1.isMember()
                && holds(c2, p + "/a", "a2", c1.sessionId()));
        eventually("b sees a with a2", () -> shows(g2, "a", "a2"));
        eventually("a sees both", () -> shows(g1, "a", "a2") && shows(g1, "b", "b"));
        g2.setData(b("b2")); // seen through a data watch of a's new session
        eventually("a sees b's new data", () -> shows(g1, "b", "b2"));
        g1.close();
        assertNoWatches(c1); // b is still there: its data watch is removed by the close
        g2.close();
        assertNoWatches(c2);
    }

    /** CURATOR-154 for a member: data set while disconnected is written once the same session is back. */
    @Test
    void dataSetWhileDisconnectedIsWrittenOnReconnect_CURATOR_154() {
        String p = path("offline-data");
        ZkClient c1 = client(Duration.ofSeconds(30));
        ZkClient c2 = client(Duration.ofSeconds(30));
        GroupMembership g1 = join(c1, p, "a");
        GroupMembership g2 = join(c2, p, "b");
        long session = c1.sessionId();
        backend.stopServer();
        try {
            eventually("uncertain", () -> g1.state() == LeaseState.UNCERTAIN);
            g1.setData(b("offline"));
            assertFalse(g1.isMember());
        } finally {
            backend.startServer();
        }
        eventually("written, same session", () -> c1.sessionId() == session
                && holds(c2, p + "/a", "offline", session));
        eventually("held again", g1::isMember);
        eventually("b sees it", () -> shows(g2, "a", "offline"));
        g1.close();
        g2.close();
        assertNoWatches(c1);
        assertNoWatches(c2);
    }

    /**
     * CURATOR-485: {@code setThisData} right after {@code start()} may throw "initial create has not been
     * processed". zkr's {@code join()} returns a member: its data can be set at once, every time.
     */
    @Test
    void setDataRightAfterJoinNeverFails_CURATOR_485() {
        String p = path("curator-485");
        ZkClient observer = client();
        List<GroupMembership> all = new ArrayList<>();
        List<ZkClient> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ZkClient c = client();
            clients.add(c);
            GroupMembership g = join(c, p, "m" + i);
            g.setData(b("set-" + i));
            all.add(g);
        }
        for (int i = 0; i < 5; i++) {
            int n = i;
            long session = clients.get(n).sessionId();
            eventually("m" + i + "'s data", () -> holds(observer, p + "/m" + n, "set-" + n, session));
        }
        GroupMembership first = all.get(0);
        assertThrows(NullPointerException.class, () -> first.setData(null));
        all.forEach(GroupMembership::close);
        assertThrows(IllegalStateException.class, () -> first.setData(b("late")));
        clients.forEach(RecipeSuite::assertNoWatches);
    }

    /**
     * CURATOR-373 (PersistentNode under GroupMember): a second member with an id in use overwrites the first's
     * node data on start and deletes its node on close. zkr refuses the join and leaves the node alone.
     */
    @Test
    void aSecondMemberWithAnIdInUseNeitherOverwritesNorDeletesTheFirst_CURATOR_373() {
        String p = path("curator-373");
        ZkClient c1 = client();
        ZkClient c2 = client();
        GroupMembership g1 = Recipes.using(c1).group(p).memberId("a").data(b("first")).join();
        GroupBuilder second = Recipes.using(c2).group(p).memberId("a").data(b("second"));
        assertThrows(IllegalStateException.class, second::join);
        Stat node = c2.exists(p + "/a");
        assertNotNull(node, "the first member's node was deleted");
        assertEquals(0, node.version(), "the first member's node was written");
        assertEquals(c1.sessionId(), node.ephemeralOwner());
        assertTrue(g1.isMember());
        assertNoWatches(c2);
        g1.close();
        assertNoWatches(c1);
    }

    /**
     * CURATOR-314 (listeners for GroupMember, never merged: Curator's members are polled): joins, data changes and
     * leaves of another member reach the listener in order, and every data watch goes on close.
     */
    @Test
    void listenersSeeJoinsDataChangesAndLeavesInOrder_CURATOR_314() {
        String p = path("curator-314");
        ZkClient c1 = client();
        ZkClient c2 = client();
        GroupMembership g1 = join(c1, p, "a");
        Recorder r1 = new Recorder();
        g1.addListener(r1);
        GroupMembership g2 = join(c2, p, "b");
        eventually("b joined", () -> shows(g1, "b", "b"));
        g2.setData(b("b2"));
        eventually("b2", () -> shows(g1, "b", "b2"));
        g2.setData(b("b3"));
        eventually("b3", () -> shows(g1, "b", "b3"));
        g2.close();
        eventually("b left", () -> g1.memberIds().equals(List.of("a")));
        eventually("in order", () -> r1.snapshot().stream().filter(e -> !e.startsWith("self:")).toList()
                .equals(List.of("+b", "~b=b2", "~b=b3", "-b")));
        assertNoWatches(c2);
        ZkClient c3 = client();
        GroupMembership g3 = join(c3, p, "c");
        eventually("c joined", () -> shows(g1, "c", "c"));
        g1.close();
        assertNoWatches(c1); // c is still there: its data watch is removed by the close
        g3.close();
        assertNoWatches(c3);
    }
}
