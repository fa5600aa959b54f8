package dev.zkr.apache.curator;

import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Helpers of the Curator-bug scenarios: bytes of a string, a bounded poll, a node's data. */
final class Scenarios {

    private Scenarios() {
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Polls with a deadline (not synchronisation): true once the condition holds, false after 20 s. */
    static boolean within20s(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** True if the node exists with exactly this data. */
    static boolean holds(ZkClient observer, String path, String data) {
        try {
            observer.sync(path);
            NodeData d = observer.getData(path);
            return Arrays.equals(d.data(), b(data));
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            return false;
        }
    }
}
