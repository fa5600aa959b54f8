package dev.zkr.apache.curator;

import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Discovery interop on a zkr server: zkr's recipes on its own client, Curator on zkr's client port. */
class DiscoveryInteropOnZkrTest extends DiscoveryInteropSuite {

    private TestEnsemble server;

    @BeforeAll
    void start() {
        server = TestEnsemble.builder().servers(1).start();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Override
    protected String connectString() {
        return server.connectString();
    }

    @Override
    protected ZkClient zkrClient() {
        return server.newClient();
    }
}
