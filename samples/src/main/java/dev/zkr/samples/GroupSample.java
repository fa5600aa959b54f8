package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.GroupListener;
import dev.zkr.recipes.GroupMembership;
import dev.zkr.recipes.Member;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;

/**
 * Group membership: a monitor watches the group while members join with some data, one changes its data, one's
 * node is deleted by an operator (made again at once), one leaves cleanly and one crashes (the server expires its
 * session): the monitor's view follows, in order.
 */
public final class GroupSample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            GroupMembership monitor = Recipes.using(ensemble.newClient()).group("/services/search")
                    .memberId("monitor").join();
            monitor.addListener(new GroupListener() {
                @Override
                public void memberJoined(Member m) {
                    Samples.say("joined: %s (%s)", m.id(), new String(m.data(), StandardCharsets.UTF_8));
                }

                @Override
                public void memberChanged(Member m) {
                    Samples.say("data:   %s (%s)", m.id(), new String(m.data(), StandardCharsets.UTF_8));
                }

                @Override
                public void memberLeft(Member m) {
                    Samples.say("left:   %s", m.id());
                }
            });
            GroupMembership a = join(ensemble.newClient(), "node-a", "10.0.0.1:9200");
            ZkClient bClient = ensemble.newClient(builder -> builder.renewSessionOnExpiry(false)); // dies for good
            GroupMembership b = join(bClient, "node-b", "10.0.0.2:9200");
            GroupMembership c = join(ensemble.newClient(), "node-c", "10.0.0.3:9200");
            Samples.awaitTrue(() -> monitor.memberIds().size() == 4, "everyone to be seen");
            Samples.say("view: %s", monitor.memberIds());

            Samples.say("node-c moves to another port");
            c.setData("10.0.0.3:9300".getBytes(StandardCharsets.UTF_8));
            Samples.awaitTrue(() -> monitor.members().stream().anyMatch(m -> m.id().equals("node-c")
                    && new String(m.data(), StandardCharsets.UTF_8).equals("10.0.0.3:9300")), "the new data");
            Samples.say("an operator deletes node-c's node: it is made again, with its latest data");
            ZkClient operator = ensemble.newClient();
            long before = operator.exists("/services/search/node-c").czxid();
            operator.delete("/services/search/node-c", -1);
            Samples.awaitTrue(() -> {
                var stat = operator.exists("/services/search/node-c");
                return stat != null && stat.czxid() > before && c.isMember();
            }, "node-c's node to be back");
            Samples.say("node-c is a member again: %s", c.isMember());

            Samples.say("node-a leaves cleanly");
            a.close();
            Samples.say("node-b crashes: the server expires its session");
            ensemble.expireSession(bClient.sessionId());
            Samples.awaitTrue(() -> monitor.memberIds().size() == 2, "the view to follow");
            Samples.say("view: %s", monitor.memberIds());
            c.close();
            b.close();
            monitor.close();
            operator.close();
        }
    }

    private static GroupMembership join(ZkClient client, String id, String address) {
        return Recipes.using(client).group("/services/search").memberId(id)
                .data(address.getBytes(StandardCharsets.UTF_8)).join();
    }
}
