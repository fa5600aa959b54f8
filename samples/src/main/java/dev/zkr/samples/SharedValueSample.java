package dev.zkr.samples;

import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.SharedValue;
import dev.zkr.recipes.VersionedValue;
import dev.zkr.testkit.TestEnsemble;

import java.nio.charset.StandardCharsets;

/**
 * A shared value: a feature flag read by a service and changed by two operators with compare-and-set. The operator
 * with a stale version loses and retries on the current value; the service's listener follows every change.
 */
public final class SharedValueSample {

    public static void main(String[] args) throws Exception {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            SharedValue service = Recipes.using(ensemble.newClient()).sharedValue("/flags/mode")
                    .initial(bytes("green")).start();
            service.addListener(v -> Samples.say("service now runs in mode %s (version %d)", text(v), v.version()));
            SharedValue alice = Recipes.using(ensemble.newClient()).sharedValue("/flags/mode").start();
            SharedValue bob = Recipes.using(ensemble.newClient()).sharedValue("/flags/mode").start();

            VersionedValue seenByBob = bob.get();
            boolean aliceWon = alice.trySet(alice.get().version(), bytes("blue"));
            Samples.say("alice sets blue at version %d: %s", seenByBob.version(), aliceWon);
            boolean bobWon = bob.trySet(seenByBob.version(), bytes("red"));
            Samples.say("bob sets red at the stale version %d: %s", seenByBob.version(), bobWon);
            if (!aliceWon || bobWon) {
                throw new IllegalStateException("compare-and-set did not follow the versions");
            }
            Samples.awaitTrue(() -> bob.get().version() == 1, "bob's copy to catch up");
            Samples.say("bob retries at version %d: %s", bob.get().version(),
                    bob.trySet(bob.get().version(), bytes("red")));
            Samples.awaitTrue(() -> "red".equals(text(service.get())), "the service to see red");
            Samples.say("service's copy: %s at version %d", text(service.get()), service.get().version());
            service.close();
            alice.close();
            bob.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(VersionedValue v) {
        return new String(v.value(), StandardCharsets.UTF_8);
    }
}
