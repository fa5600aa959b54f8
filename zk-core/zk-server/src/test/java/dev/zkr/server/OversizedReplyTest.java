package dev.zkr.server;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reply larger than a client accepts (here {@code getChildren} of a node whose children's names add up to more
 * than maxDataSize + 256 KiB) fails that request alone with {@code DataTooLarge}, and the connection stays: no
 * other request in flight is lost, no reconnect. (Sent as is, the frame would make the client drop the
 * connection, and every retry drop it again.)
 */
@Timeout(120)
class OversizedReplyTest {

    @TempDir
    Path dir;

    @Test
    void aReplyOverTheFrameLimitFailsAloneAndTheConnectionStays() throws Exception {
        // defaults on both sides: the frame limit is 1 MiB + 256 KiB
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             ZkClient c = ZkClient.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).build()) {
            List<ConnectionState> changes = new CopyOnWriteArrayList<>();
            c.addConnectionStateListener((client, state) -> changes.add(state));
            c.create("/big", new byte[0], CreateMode.PERSISTENT);
            c.create("/small", new byte[0], CreateMode.PERSISTENT);
            c.create("/small/one", new byte[0], CreateMode.PERSISTENT);
            String name = "x".repeat(200);
            int children = 6_500; // about 1.35 MB of names
            List<CompletableFuture<?>> creates = new ArrayList<>();
            for (int i = 0; i < children; i++) {
                creates.add(c.createAsync("/big/" + name + "-" + i, new byte[0], CreateMode.PERSISTENT));
            }
            CompletableFuture.allOf(creates.toArray(new CompletableFuture[0])).get();

            // one oversized read among others in flight: only it fails
            CompletableFuture<?> before = c.getChildrenAsync("/small", null);
            CompletableFuture<?> big = c.getChildrenAsync("/big", null);
            CompletableFuture<?> after = c.getChildrenAsync("/small", null);
            assertEquals(List.of("one"), ((dev.zkr.client.Children) before.get()).names());
            assertEquals(List.of("one"), ((dev.zkr.client.Children) after.get()).names());
            Exception e = assertThrows(Exception.class, big::get);
            assertTrue(e.getCause() instanceof ZkException.DataTooLarge, String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains("bytes a client accepts"), e.getCause().getMessage());
            // the session and connection are untouched, and the node can be read in other ways
            assertEquals(children, c.exists("/big").numChildren());
            assertEquals(List.of(), changes, "no connection state change");
            assertEquals(ConnectionState.CONNECTED, c.state());
        }
    }
}
