package dev.zkr.server;

import dev.zkr.server.zookeeper.FirstFrame;
import org.junit.jupiter.api.Test;

import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code 4lw.commands.whitelist} read as ZooKeeper 3.9 reads it: srvr by default and always, * for every word. */
class FourLetterWordsPropertiesTest {

    private static ServerConfig read(String whitelist) {
        Properties p = new Properties();
        p.setProperty("dataDir", "/tmp/zkr-unused");
        if (whitelist != null) {
            p.setProperty("4lw.commands.whitelist", whitelist);
        }
        return ServerConfig.fromProperties(p);
    }

    @Test
    void srvrAloneByDefault() {
        assertEquals(Set.of("srvr"), read(null).fourLetterWords());
        assertEquals(Set.of("srvr"), read("").fourLetterWords());
    }

    @Test
    void aListAddsToSrvrAndAStarAllowsEveryWord() {
        assertEquals(Set.of("srvr", "ruok", "mntr"), read(" ruok, mntr ,").fourLetterWords());
        assertEquals(FirstFrame.knownWords(), read("ruok, *").fourLetterWords());
        assertTrue(read("*").fourLetterWords().containsAll(Set.of("conf", "cons", "dirs", "envi", "isro", "wchs")));
    }

    @Test
    void anUnknownWordIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read("ruok,rouk"));
        assertTrue(e.getMessage().contains("4lw.commands.whitelist") && e.getMessage().contains("rouk"),
                e.getMessage());
    }

    @Test
    void theSettingSurvivesACopyOfTheConfig() {
        assertEquals(Set.of("srvr", "ruok"), read("ruok").withPort(1234).fourLetterWords());
    }
}
