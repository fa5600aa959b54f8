package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.LeaderSelector;
import dev.zkr.recipes.Leadership;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Leader selection: three workers take turns leading a {@code LeaderSelector}; each term does a few steps of work
 * stamped with its fencing token and gives leadership up, and the worker queues again at the end. Then the leader's
 * session expires in the middle of a term: its callback is interrupted, its token is invalid at once, and the next
 * worker leads with a larger token. (The next leader may start before the old one has heard of its expiry: the
 * fencing token, larger for every term, is what makes the old leader's late writes refusable meanwhile.)
 */
public final class LeaderSelectorSample {

    public static void main(String[] args) throws Exception {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            BlockingQueue<String> terms = new LinkedBlockingQueue<>();
            BlockingQueue<Leadership> stalled = new LinkedBlockingQueue<>();
            CountDownLatch interrupted = new CountDownLatch(1);
            List<ZkClient> clients = new ArrayList<>();
            List<LeaderSelector> selectors = new ArrayList<>();
            long[] lastToken = {-1};
            AtomicInteger round = new AtomicInteger();
            for (String id : List.of("alice", "bob", "carol")) {
                ZkClient client = ensemble.newClient();
                clients.add(client);
                selectors.add(Recipes.using(client).leaderSelector("/selector").id(id).takeLeadership(l -> {
                    long token = l.fencingToken();
                    synchronized (lastToken) {
                        if (token <= lastToken[0]) {
                            throw new IllegalStateException("fencing token went back: " + token);
                        }
                        lastToken[0] = token;
                    }
                    Samples.say("%s leads (fencing token %d)", id, token);
                    if (round.incrementAndGet() == 6) {
                        stalled.add(l); // this term waits until its leadership is lost
                        try {
                            new CountDownLatch(1).await(); // stands for work that stalls; the interrupt ends it
                        } catch (InterruptedException e) {
                            Samples.say("%s was interrupted: valid=%s, token now %d", id, l.isValid(),
                                    l.fencingToken());
                            interrupted.countDown();
                        }
                        return;
                    }
                    terms.add(id);
                }).start());
            }
            for (int i = 0; i < 5; i++) {
                String who = terms.poll(10, TimeUnit.SECONDS);
                if (who == null) {
                    throw new IllegalStateException("nobody led");
                }
            }
            Leadership stuck = stalled.poll(10, TimeUnit.SECONDS);
            if (stuck == null) {
                throw new IllegalStateException("the sixth term did not start");
            }
            String stuckId = stuck.selector().id();
            Samples.say("%s's session expires while it leads", stuckId);
            ensemble.expireSession(clients.get(List.of("alice", "bob", "carol").indexOf(stuckId)).sessionId());
            String next = terms.poll(10, TimeUnit.SECONDS);
            if (next == null) {
                throw new IllegalStateException("leadership did not move on after the expiry");
            }
            if (!interrupted.await(10, TimeUnit.SECONDS) || stuck.isValid()) {
                throw new IllegalStateException("the expired leader's term was not interrupted and invalidated");
            }
            Samples.say("%s led next; every term had a larger token than the one before", next);
            for (LeaderSelector s : selectors) {
                s.close();
            }
        }
    }
}
