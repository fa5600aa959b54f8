package dev.zkr.tree;

import dev.zkr.storage.SnapshotStore;
import java.lang.management.ManagementFactory;
import java.nio.file.*;

public class SnapBench {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        DataTree t = new DataTree();
        long z = 0;
        byte[] data = new byte[100];
        t.apply(new TxnHeader(++z, 1, 0, 0), new Txn.CreateNode("/c", new byte[0], 0, false, 1));
        for (int k = 0; k < 4; k++) t.apply(new TxnHeader(++z, 1, 0, 0), new Txn.CreateNode("/c/c" + k, new byte[0], 0, false, 1));
        for (int i = 0; i < n; i++) {
            String p = String.format("/c/c%d/n-%010d", i % 4, i);
            t.apply(new TxnHeader(++z, 1, 0, 0), new Txn.CreateNode(p, data, 0, false, i / 4 + 1));
        }
        Path dir = Files.createTempDirectory("snapbench");
        SnapshotStore store = SnapshotStore.open(dir);
        var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int r = 0; r < 12; r++) {
            long c0 = bean.getCurrentThreadCpuTime(), w0 = System.nanoTime();
            Path f = store.write(z + r, t::writeSnapshot);
            long c1 = bean.getCurrentThreadCpuTime(), w1 = System.nanoTime();
            best = Math.min(best, c1 - c0);
            if (r == 0) { java.util.zip.CRC32 crc = new java.util.zip.CRC32(); crc.update(Files.readAllBytes(f)); System.out.printf("size %d crc %x%n", Files.size(f), crc.getValue()); }
        }
        System.out.printf("best cpu %d ms%n", best / 1_000_000);
    }
}
