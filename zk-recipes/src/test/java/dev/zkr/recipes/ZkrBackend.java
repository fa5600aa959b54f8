package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;

/** The zkr backend of the recipe suites: a one-server {@link TestEnsemble} from the test kit. */
final class ZkrBackend implements RecipeBackend {

    private final TestEnsemble ensemble;

    private ZkrBackend(TestEnsemble ensemble) {
        this.ensemble = ensemble;
    }

    static ZkrBackend start() {
        return new ZkrBackend(TestEnsemble.builder().servers(1).start());
    }

    @Override
    public ZkClient newClient(Duration sessionTimeout) {
        return ensemble.newClient(sessionTimeout);
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
