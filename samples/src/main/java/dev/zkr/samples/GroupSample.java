package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.GroupListener;
import dev.zkr.recipes.GroupMembership;
import dev.zkr.recipes.Member;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;

/**
 * Group membership: a monitor watches the group while members join with some data, one leaves cleanly and one
 * crashes (the server expires its session): the monitor's view follows, in order.
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

            Samples.say("node-a leaves cleanly");
            a.close();
            Samples.say("node-b crashes: the server expires its session");
            ensemble.expireSession(bClient.sessionId());
            Samples.awaitTrue(() -> monitor.memberIds().size() == 2, "the view to follow");
            Samples.say("view: %s", monitor.memberIds());
            c.close();
            b.close();
            monitor.close();
        }
    }

    private static GroupMembership join(ZkClient client, String id, String address) {
        return Recipes.using(client).group("/services/search").memberId(id)
                .data(address.getBytes(StandardCharsets.UTF_8)).join();
    }
}
