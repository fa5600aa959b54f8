package dev.zkr.samples;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.TreeCache;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;

/**
 * A tree cache: a router keeps a local copy of the service registry (a subtree of service instances), follows
 * instances coming and going, keeps at most 64 bytes of their data in memory (the rest is read again when asked),
 * and catches up after its session expired.
 */
public final class TreeCacheSample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient ops = ensemble.newClient();
            ops.create("/app/services/orders/i1", bytes("10.0.0.1:8080"), CreateMode.PERSISTENT, Parents.PERSISTENT);
            ops.create("/app/services/billing/i1", bytes("10.0.0.7:8080"), CreateMode.PERSISTENT, Parents.PERSISTENT);
            ZkClient routerClient = ensemble.newClient();
            TreeCache registry = Recipes.using(routerClient).treeCache("/app/services").maxDataBytes(64).build();
            registry.addListener(e -> Samples.say("%-11s %s", e.type(), e.path()));
            registry.start();
            ops.create("/app/services/orders/i2", bytes("10.0.0.2:8080"), CreateMode.PERSISTENT);
            ops.delete("/app/services/billing/i1", -1);
            Samples.awaitTrue(() -> registry.children("/app/services/orders").size() == 2, "the new instance");
            ensemble.expireSession(routerClient.sessionId());
            ops.create("/app/services/orders/i3", bytes("10.0.0.3:8080"), CreateMode.PERSISTENT);
            Samples.awaitTrue(() -> registry.children("/app/services/orders").size() == 3,
                    "the copy to catch up after the expiry");
            for (String instance : registry.children("/app/services/orders")) {
                String at = registry.get("/app/services/orders/" + instance)
                        .map(d -> new String(d.data(), StandardCharsets.UTF_8)).orElse("gone");
                Samples.say("orders/%s at %s", instance, at);
            }
            Samples.say("%d nodes in the copy, %d bytes of data held (bound: 64)", registry.size(),
                    registry.dataBytes());
            registry.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
