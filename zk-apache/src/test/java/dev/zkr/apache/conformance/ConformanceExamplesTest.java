package dev.zkr.apache.conformance;

import dev.zkr.apache.conformance.Args.Data;
import dev.zkr.apache.conformance.Args.PathRef;
import dev.zkr.apache.conformance.Args.Version;
import dev.zkr.client.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * The most important differential cases as fixed sequences, so that a failure is easy to read. Each runs on zkr and
 * on ZooKeeper side by side with the same checks as {@link ConformanceProperties}.
 */
class ConformanceExamplesTest {

    private static Backends backends;

    @BeforeAll
    static void start() {
        backends = Backends.start();
    }

    @AfterAll
    static void stop() {
        if (backends != null) {
            backends.close();
        }
    }

    private static void run(Step... steps) {
        Differential.run(backends, List.of(steps));
    }

    private static Step create(String path, CreateMode mode) {
        return new Step.Create(path, new Data(1), mode, false);
    }

    private static PathRef p(String rel) {
        return PathRef.of(rel);
    }

    @Test
    void deleteRaisesTheParentsCversion() {
        run(create("a", CreateMode.PERSISTENT),
                create("a/b", CreateMode.PERSISTENT),
                new Step.Delete(p("a/b"), Version.ANY),
                new Step.Exists(p("a"), -1),
                create("a/c", CreateMode.PERSISTENT),
                new Step.Multi(List.of(new Step.MultiOp.MDelete(p("a/c"), Version.CURRENT))),
                new Step.GetChildren(p("a"), -1));
    }

    @Test
    void sequentialNamesCountCreationsOnly() {
        run(create("a", CreateMode.PERSISTENT),
                create("a/b", CreateMode.PERSISTENT),
                new Step.Delete(p("a/b"), Version.ANY),
                create("a/s-", CreateMode.PERSISTENT_SEQUENTIAL),
                create("a/", CreateMode.EPHEMERAL_SEQUENTIAL),
                create("a/s-", CreateMode.PERSISTENT_SEQUENTIAL),
                new Step.GetChildren(p("a"), -1));
    }
}
