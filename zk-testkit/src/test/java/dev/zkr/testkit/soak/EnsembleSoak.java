package dev.zkr.testkit.soak;

import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ensemble soak (issue 13; not part of {@code mvn verify}): a 3-server ensemble under repeated kills of the
 * leader (and now and then of a follower) for {@code -Dzkr.soak.minutes} (default 30), seed
 * {@code -Dzkr.soak.seed} (default 13), {@code -Dzkr.soak.rate} creates per second per create writer (default 40).
 * Run: {@code mvn -B -Psoak -pl zk-testkit -am test -Dtest=EnsembleSoak -Dzkr.soak.minutes=30}. Prints one line
 * per minute and a final table; fails on any lost write, lost session or other violation.
 */
class EnsembleSoak {

    @Test
    void noAcknowledgedWriteIsLostUnderRepeatedLeaderKills() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("zkr.soak.minutes", "30"));
        long seed = Long.getLong("zkr.soak.seed", 13);
        int rate = Integer.getInteger("zkr.soak.rate", 40);
        SoakRunner.Settings base = SoakRunner.Settings.soak(Duration.ofMillis((long) (minutes * 60_000)), seed,
                System.out);
        SoakRunner.Settings settings = new SoakRunner.Settings(base.duration(), seed, base.reportEvery(),
                base.kills(), base.leaderShare(), base.minInterval(), base.maxInterval(), base.minDown(),
                base.maxDown(), rate, System.out);
        System.out.printf("ensemble soak: %.1f min, seed %d, %d creates/s per create writer%n", minutes, seed, rate);
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            SoakRunner.Report r = new SoakRunner(e, settings).run();
            System.out.print(r.table());
            assertEquals(0, r.lost(), "writes lost");
            assertEquals(0, r.sessionsLost(), "sessions lost");
            assertTrue(r.violations().isEmpty(), () -> String.join("\n", r.violations()));
            assertTrue(r.gaps().leaderKills() > 0, "no leader was killed");
        }
    }
}
