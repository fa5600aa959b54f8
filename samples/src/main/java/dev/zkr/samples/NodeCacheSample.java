package dev.zkr.samples;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.NodeCache;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A node cache: a service keeps a local copy of its configuration node and reacts to every change an operator
 * makes, including the node being deleted and created again, and catches up after its session expired.
 */
public final class NodeCacheSample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient operator = ensemble.newClient();
            operator.create("/app/config", bytes("timeout=5"), CreateMode.PERSISTENT, Parents.CONTAINER);
            ZkClient serviceClient = ensemble.newClient();
            NodeCache cfg = Recipes.using(serviceClient).nodeCache("/app/config");
            cfg.addListener(e -> Samples.say("%-11s %s", e.type(), e.data().map(NodeCacheSample::text).orElse("-")));
            cfg.start();
            operator.setData("/app/config", bytes("timeout=7"), -1);
            operator.delete("/app/config", -1);
            operator.create("/app/config", bytes("timeout=9"), CreateMode.PERSISTENT);
            Samples.awaitTrue(() -> "timeout=9".equals(cfg.current().map(NodeCacheSample::text).orElse("")),
                    "the copy to follow");
            ensemble.expireSession(serviceClient.sessionId());
            operator.setData("/app/config", bytes("timeout=11"), -1);
            Samples.awaitTrue(() -> "timeout=11".equals(cfg.current().map(NodeCacheSample::text).orElse("")),
                    "the copy to catch up after the expiry");
            Optional<NodeData> now = cfg.current();
            Samples.say("the service's copy: %s (version %d)", text(now.orElseThrow()), now.get().stat().version());
            cfg.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(NodeData d) {
        return new String(d.data(), StandardCharsets.UTF_8);
    }
}
