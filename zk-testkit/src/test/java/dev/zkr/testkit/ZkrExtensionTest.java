package dev.zkr.testkit;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

@ExtendWith(ZkrExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ZkrExtensionTest {

    static TestEnsemble first;

    @Test
    @Order(1)
    void injectsEnsembleAndDistinctClients(TestEnsemble ensemble, ZkClient a, ZkClient b) {
        first = ensemble;
        assertNotEquals(a.sessionId(), b.sessionId());
        a.create("/shared", new byte[0], CreateMode.PERSISTENT);
        assertNotNull(b.exists("/shared"));
        assertEquals(1, ensemble.size());
    }

    @Test
    @Order(2)
    void perClassEnsembleKeepsDataBetweenTests(TestEnsemble ensemble, ZkClient client) {
        assertSame(first, ensemble);
        assertNotNull(client.exists("/shared"));
    }

    @Test
    @Order(3)
    @ZkrEnsemble(scope = ZkrEnsemble.Scope.PER_TEST)
    void perTestEnsembleIsFresh(TestEnsemble ensemble, ZkClient client) {
        assertNotSame(first, ensemble);
        assertNull(client.exists("/shared"));
    }
}
