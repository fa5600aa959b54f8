package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;

/**
 * The zkr backend of the recipe suites: a one-server {@link TestEnsemble} from the test kit, with zkr's native
 * client or, through {@link #start(ClientMaker)}, another client (zk-apache runs the suites with Apache ZooKeeper's
 * client on zkr).
 */
public final class ZkrBackend implements RecipeBackend {

    private final TestEnsemble ensemble;
    private final ClientMaker clients;

    private ZkrBackend(TestEnsemble ensemble, ClientMaker clients) {
        this.ensemble = ensemble;
        this.clients = clients;
    }

    static ZkrBackend start() {
        return start(null);
    }

    /** A one-server zkr backend whose clients {@code clients} makes (null: zkr's native client). */
    public static ZkrBackend start(ClientMaker clients) {
        return new ZkrBackend(TestEnsemble.builder().servers(1).start(), clients);
    }

    @Override
    public ZkClient newClient(Duration sessionTimeout) {
        return clients == null ? ensemble.newClient(sessionTimeout)
                : clients.connect(ensemble.connectString(), sessionTimeout);
    }

    @Override
    public void expireSession(ZkClient client) {
        ensemble.expireSession(client.sessionId());
    }

    @Override
    public void restartServer() {
        ensemble.restart(0);
    }

    @Override
    public void stopServer() {
        ensemble.kill(0);
    }

    @Override
    public void startServer() {
        ensemble.restart(0);
    }

    @Override
    public void close() {
        ensemble.close();
    }
}
