package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.PersistentNode;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A persistent ephemeral node: a service announces itself at {@code /services/api/host-1}. An operator deletes the
 * node by mistake and it comes back; the service's session expires and the node comes back with the new session and
 * the data set last; close removes it.
 */
public final class PersistentNodeSample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient service = ensemble.newClient();
            ZkClient operator = ensemble.newClient();
            String path = "/services/api/host-1";
            PersistentNode node = Recipes.using(service).persistentNode(path)
                    .data("10.0.0.1:8080".getBytes(StandardCharsets.UTF_8)).start();
            node.await(Duration.ofSeconds(10));
            Samples.say("announced: %s = %s", path, read(operator, path));

            long before = operator.exists(path).czxid();
            operator.delete(path, -1);
            Samples.say("the operator deleted it");
            Samples.awaitTrue(() -> operator.exists(path) != null && operator.exists(path).czxid() > before,
                    "the node to come back");
            Samples.say("back: %s", read(operator, path));

            node.setData("10.0.0.1:9090".getBytes(StandardCharsets.UTF_8));
            long old = service.sessionId();
            ensemble.expireSession(old);
            Samples.say("the service's session expired");
            Samples.awaitTrue(() -> service.sessionId() != old && operator.exists(path) != null
                    && operator.exists(path).ephemeralOwner() == service.sessionId()
                    && "10.0.0.1:9090".equals(read(operator, path)), "the node to come back with the new session");
            Samples.say("back with the new session: %s", read(operator, path));

            node.close();
            Samples.say("closed: exists=%s", operator.exists(path) != null);
            if (operator.exists(path) != null) {
                throw new IllegalStateException("the node is still there after close");
            }
        }
    }

    private static String read(ZkClient client, String path) {
        try {
            return new String(client.getData(path).data(), StandardCharsets.UTF_8);
        } catch (dev.zkr.client.ZkException.NoNode e) {
            return null;
        }
    }
}
