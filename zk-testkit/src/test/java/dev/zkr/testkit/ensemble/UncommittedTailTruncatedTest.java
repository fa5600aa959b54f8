package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerProbe;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader isolated with a client logs (fsyncs) writes it can never commit, then is killed with that uncommitted
 * tail in its log. The majority moves on without it. Restarted, the old leader does not apply its tail at recovery,
 * truncates it when it syncs with the new leader, and ends with exactly the majority's history — plus the tail's
 * writes, which their client kept and sent again once the server was back, applied once each as txns of a later
 * epoch (exactly-once, docs/exactly-once.md).
 */
@Timeout(120)
class UncommittedTailTruncatedTest {

    @Test
    void aRestartedServerTruncatesItsUncommittedTail() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int old = e.leader();
            int[] majority = others(3, old);
            ZkClient onOld = clientOf(e, old);
            onOld.create("/k", new byte[0], CreateMode.PERSISTENT);
            createAll(onOld, "/k/committed-", 0, 5);
            long committed = e.server(old).lastZxid();

            e.isolate(old);
            List<CompletableFuture<dev.zkr.client.Created>> tail = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                tail.add(onOld.createAsync("/k/tail-" + i, new byte[] {(byte) i}, CreateMode.PERSISTENT));
            }
            await(() -> "the isolated leader logs the tail (durable 0x"
                    + Long.toHexString(ServerProbe.durableZxid(e.server(old))) + ")",
                    () -> ServerProbe.durableZxid(e.server(old)) >= committed + 5);
            assertEquals(committed, e.server(old).lastZxid(), "the isolated leader applied an uncommitted write");
            e.kill(old);
            e.heal();

            int next = leaderAmong(e, majority);
            ZkClient onMajority = clientOf(e, majority);
            createAll(onMajority, "/k/majority-", 0, 10);
            e.restart(old);
            long target = e.server(next).lastZxid();
            await(() -> "the restarted server applies 0x" + Long.toHexString(target),
                    () -> e.server(old).lastZxid() >= target);
            // the tail's client kept those writes and sends them again once its server is back (exactly-once,
            // docs/exactly-once.md): each is applied once, as a new txn of a later epoch, not the truncated record
            for (CompletableFuture<dev.zkr.client.Created> f : tail) {
                long czxid = Ensembles.get(f).stat().czxid();
                assertTrue((czxid >>> 32) > (committed >>> 32), "a tail write applied in the isolated leader's epoch");
            }
            long all = e.server(next).lastZxid();
            await(() -> "the restarted server applies 0x" + Long.toHexString(all),
                    () -> e.server(old).lastZxid() >= all);
            Set<String> expected = new TreeSet<>(names("committed-", 0, 5));
            expected.addAll(names("majority-", 0, 10));
            expected.addAll(names("tail-", 0, 5));
            for (int i = 0; i < 3; i++) {
                assertEquals(expected, childrenOn(e, i, "/k"), "server " + i);
            }
            createAll(onMajority, "/k/later-", 0, 3);
            expected.addAll(names("later-", 0, 3));
            assertEquals(expected, childrenOn(e, old, "/k"), "the restarted server follows new writes");
        }
    }
}
