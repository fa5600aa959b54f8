package dev.zkr.samples;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.MultiLock;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A multi-lock: bank transfers between three accounts, each transfer locking its two accounts as one. Clients name
 * the accounts in opposite orders; the multi-lock takes them in one global order, so nobody deadlocks, and the total
 * of the balances never changes.
 */
public final class MultiLockSample {

    private static final String[] ACCOUNTS = {"/bank/alice", "/bank/bob", "/bank/carol"};
    private static final int TRANSFERS = 10;

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient admin = ensemble.newClient();
            admin.create("/bank", new byte[0], CreateMode.PERSISTENT);
            for (String account : ACCOUNTS) {
                admin.create(account, ByteBuffer.allocate(8).putLong(100).array(), CreateMode.PERSISTENT);
            }
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                String from = ACCOUNTS[t];
                String to = ACCOUNTS[(t + 1) % ACCOUNTS.length];
                ZkClient client = ensemble.newClient();
                MultiLock both = Recipes.using(client).multiLock(List.of("/locks" + from, "/locks" + to));
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < TRANSFERS; i++) {
                        try (LockLease lease = both.acquire()) {
                            long a = balance(client, from);
                            long b = balance(client, to);
                            write(client, from, a - 5);
                            write(client, to, b + 5);
                        }
                    }
                    Samples.say("moved %d x 5 from %s to %s", TRANSFERS, from, to);
                }, "client-" + (t + 1));
                threads.add(thread);
                thread.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            long total = 0;
            for (String account : ACCOUNTS) {
                total += balance(admin, account);
                Samples.say("%s: %d", account, balance(admin, account));
            }
            Samples.say("total %d (was %d)", total, 100 * ACCOUNTS.length);
            if (total != 100L * ACCOUNTS.length) {
                throw new IllegalStateException("money appeared or vanished: " + total);
            }
        }
    }

    private static long balance(ZkClient client, String account) {
        return ByteBuffer.wrap(client.getData(account).data()).getLong();
    }

    private static void write(ZkClient client, String account, long value) {
        client.setData(account, ByteBuffer.allocate(8).putLong(value).array(), -1);
    }
}
