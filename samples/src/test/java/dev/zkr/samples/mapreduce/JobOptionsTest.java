package dev.zkr.samples.mapreduce;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line of the sample: {@code --kill-server ROLE [PHASE]} next to the other kill options. */
class JobOptionsTest {

    @Test
    void killServerTakesARoleAndAnOptionalPhase() {
        assertEquals(new ServerKill(ServerKill.Role.LEADER, Phase.MAP),
                JobOptions.parse(new String[] {"--kill-server", "leader"}).killServer());
        JobOptions o = JobOptions.parse(new String[] {"--kill-server", "Follower", "reduce", "--kill-master"});
        assertEquals(new ServerKill(ServerKill.Role.FOLLOWER, Phase.REDUCE), o.killServer());
        assertEquals(Phase.MAP, o.killMaster());
        assertNull(JobOptions.parse(new String[0]).killServer());
    }

    @Test
    void outNamesTheOutputDirectoryAndItsAbsenceMeansATemporaryOne() {
        assertEquals(Path.of("wc-out"), JobOptions.parse(new String[] {"--out", "wc-out"}).outputDir());
        assertNull(JobOptions.parse(new String[0]).outputDir());
        assertThrows(IllegalArgumentException.class, () -> JobOptions.parse(new String[] {"--out"}));
    }

    @Test
    void badKillServerArgumentsAreRefusedWithAClearMessage() {
        IllegalArgumentException role = assertThrows(IllegalArgumentException.class,
                () -> JobOptions.parse(new String[] {"--kill-server", "candidate"}));
        assertTrue(role.getMessage().contains("leader, follower"), role.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JobOptions.parse(new String[] {"--kill-server"}));
        assertThrows(IllegalArgumentException.class,
                () -> JobOptions.parse(new String[] {"--kill-server", "leader", "split"}));
        IllegalArgumentException external = assertThrows(IllegalArgumentException.class,
                () -> JobOptions.parse(new String[] {"--kill-server", "leader", "--connect", "127.0.0.1:2181"}));
        assertTrue(external.getMessage().contains("embedded"), external.getMessage());
    }
}
