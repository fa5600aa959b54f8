package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import org.opentest4j.TestAbortedException;

import java.time.Duration;

/**
 * The zkr backend of the recipe suites. The zkr test kit ({@code dev.zkr.testkit.TestEnsemble}) has not landed
 * yet: until it does, the zkr runs are skipped (the same suites run on Apache ZooKeeper in zk-apache).
 */
final class ZkrBackend implements RecipeBackend {

    static ZkrBackend start() {
        throw new TestAbortedException("the zkr test kit (TestEnsemble) is not available yet");
    }

    @Override
    public ZkClient newClient(Duration sessionTimeout) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void expireSession(ZkClient client) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void restartServer() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
