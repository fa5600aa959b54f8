package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SharedValue: versioned compare-and-set, listeners in order, catching up after disconnects and new sessions. */
public abstract class SharedValueSuite extends RecipeSuite {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(VersionedValue v) {
        return new String(v.value(), StandardCharsets.UTF_8);
    }

    private SharedValue start(ZkClient c, String path, String initial) {
        return Recipes.using(c).sharedValue(path).initial(bytes(initial)).start();
    }

    @Test
    void theFirstStartCreatesTheNodeLaterOnesReadIt() {
        String p = path("mode");
        SharedValue first = start(client(), p, "green");
        SharedValue second = start(client(), p, "blue");
        assertEquals("green", text(first.get()));
        assertEquals("green", text(second.get()), "the existing value wins over a later initial value");
        assertEquals(0, second.get().version());
        first.close();
        second.close();
    }

    @Test
    void trySetSucceedsOnlyAtTheVersionItNames() {
        String p = path("cas");
        SharedValue a = start(client(), p, "v0");
        SharedValue b = start(client(), p, "v0");
        assertTrue(a.trySet(0, bytes("a1")));
        assertEquals(new VersionedValue(1, bytes("a1")), a.get(), "the setter's copy is current at once");
        assertFalse(b.trySet(0, bytes("b1")), "version 0 is gone");
        eventually("b sees a's value", () -> b.get().version() == 1);
        assertTrue(b.trySet(1, bytes("b2")));
        eventually("a sees b's value", () -> "b2".equals(text(a.get())));
        assertFalse(a.trySet(1, bytes("stale")));
        a.close();
        b.close();
    }

    @Test
    void listenersSeeValuesInCommitOrderAndTheLatestLast() {
        String p = path("order");
        ZkClient readerClient = client();
        SharedValue reader = start(readerClient, p, "0");
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        reader.addListener(v -> seen.add(Integer.parseInt(text(v))));
        SharedValue writer = start(client(), p, "0");
        for (int i = 1; i <= 50; i++) {
            writer.set(bytes(Integer.toString(i)));
        }
        eventually("the reader saw the last value", () -> !seen.isEmpty() && seen.get(seen.size() - 1) == 50);
        synchronized (seen) {
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(seen.get(i) > seen.get(i - 1), "never backwards: " + seen);
            }
        }
        assertEquals(50, reader.get().version());
        reader.close();
        writer.close();
        assertNoWatches(readerClient);
    }

    @Test
    void aNewSessionCatchesUpWithValuesWrittenMeanwhile() {
        String p = path("expire");
        ZkClient readerClient = client();
        SharedValue reader = start(readerClient, p, "0");
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        reader.addListener(v -> seen.add(text(v)));
        SharedValue writer = start(client(), p, "0");
        backend.expireSession(readerClient); // the watch goes with the session
        writer.set(bytes("written while the reader was away"));
        writer.set(bytes("latest"));
        eventually("the reader has the latest value", () -> "latest".equals(text(reader.get())));
        eventually("and its listener was told", () -> seen.contains("latest"));
        reader.close();
        writer.close();
    }

    @Test
    void serverRestartLosesNoUpdate() {
        String p = path("restart");
        SharedValue reader = start(client(), p, "0");
        SharedValue writer = start(client(), p, "0");
        backend.restartServer();
        writer.set(bytes("after restart"));
        eventually("the reader has it", () -> "after restart".equals(text(reader.get())));
        reader.close();
        writer.close();
    }

    @Test
    void aSetWhoseResponseWasLostIsDecidedByReading() {
        String p = path("lost");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client());
        SharedValue v = start(flaky, p, "0");
        flaky.loseSetData(1);
        assertTrue(v.trySet(0, bytes("once")), "applied, though its response was lost");
        assertEquals(1, flaky.lost());
        assertEquals(1, observer.getData(p).stat().version(), "written once");
        assertArrayEquals(bytes("once"), observer.getData(p).data());
        flaky.loseSetData(1);
        assertFalse(v.trySet(0, bytes("stale")), "lost or not, a stale version fails");
        v.close();
    }

    @Test
    void theValueFollowsANodeDeletedAndCreatedAgain() {
        String p = path("recreate");
        ZkClient admin = client();
        SharedValue v = start(client(), p, "first");
        admin.delete(p, -1);
        // the parent is a container the server may reap as soon as p is gone: make it again if it was
        admin.create(p, bytes("second"), dev.zkr.client.CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        eventually("the copy follows the new node", () -> "second".equals(text(v.get())));
        assertEquals(0, v.get().version());
        v.close();
    }
}
