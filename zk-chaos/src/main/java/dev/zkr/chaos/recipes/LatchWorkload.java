package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.workload.Worker;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.Recipes;

import java.time.Duration;

/**
 * {@code latch}: zkr's {@link LeaderLatch} (fair) on one path through the worker's client; the token is
 * {@link LeaderLatch#fencingToken()} (the leading node's czxid); see {@link LatchLoop}.
 */
public final class LatchWorkload extends LatchLoop {

    @Override
    public String name() {
        return "latch";
    }

    @Override
    Session open(Worker w) {
        History h = w.history();
        Recipes recipes = Recipes.using(w.client());
        ConnectionStateListener onConnection = (c, s) -> Events.connState(h, w.index(), s.name());
        w.client().addConnectionStateListener(onConnection);
        return new Session() {
            @Override
            public Participant join(String id) {
                LeaderLatch latch = recipes.leaderLatch(PATH).id(id)
                        .onElected(l -> Events.instant(h, w.index(), Events.ELECTED, id, null,
                                Long.toString(l.fencingToken())))
                        .onRevoked(l -> Events.instant(h, w.index(), Events.REVOKED, id, null, null))
                        .start();
                return new Participant() {
                    @Override
                    public boolean isLeader() {
                        return latch.isLeader();
                    }

                    @Override
                    public long token() {
                        return latch.fencingToken();
                    }

                    @Override
                    public void awaitLeadership(long millis) {
                        latch.await(Duration.ofMillis(millis));
                    }

                    @Override
                    public void close() {
                        latch.close();
                    }
                };
            }

            @Override
            public void close() {
                w.client().removeConnectionStateListener(onConnection);
            }
        };
    }
}
