package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.workload.Worker;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code curator-latch}: Curator's {@link LeaderLatch}, on each worker's own CuratorFramework, the
 * same loop and checks as {@code latch}. Curator gives no token: on each isLeader callback the latch's node
 * ({@code getOurPath()}) is read and its czxid is the term's token. Curator closes latches silently (no notLeader),
 * so a term ends at the resign.
 */
public final class CuratorLatchWorkload extends LatchLoop {

    @Override
    public String name() {
        return "curator-latch";
    }

    @Override
    Session open(Worker w) throws InterruptedException {
        History h = w.history();
        CuratorClient client = new CuratorClient(w);
        // the callbacks read the node (a round trip): not on Curator's event thread
        ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "curator-latch-" + w.index());
            t.setDaemon(true);
            return t;
        });
        return new Session() {
            @Override
            public Participant join(String id) throws Exception {
                LeaderLatch latch = new LeaderLatch(client.framework(), PATH, id);
                AtomicLong token = new AtomicLong(-1);
                latch.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        long t = h.now();
                        long czxid = client.czxid(latch.getOurPath());
                        token.set(czxid);
                        h.add(new Op(w.index(), Events.ELECTED, id, null, t, h.now(), Op.Status.OK,
                                Long.toString(czxid), null));
                    }

                    @Override
                    public void notLeader() {
                        token.set(-1);
                        Events.instant(h, w.index(), Events.REVOKED, id, null, null);
                    }
                }, callbacks);
                latch.start();
                return new Participant() {
                    @Override
                    public boolean isLeader() {
                        return latch.hasLeadership();
                    }

                    @Override
                    public long token() {
                        return token.get();
                    }

                    @Override
                    public void awaitLeadership(long millis) throws InterruptedException {
                        latch.await(millis, TimeUnit.MILLISECONDS);
                    }

                    @Override
                    public void close() throws Exception {
                        latch.close();
                    }
                };
            }

            @Override
            public void close() {
                client.close();
                callbacks.shutdownNow();
            }
        };
    }
}
