package dev.zkr.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ZkServerMainTest {

    @TempDir
    Path dir;

    @Test
    void propertiesFileWithFlagsOverridingIt() throws IOException {
        Path file = dir.resolve("zkr.properties");
        Files.writeString(file, "port=2181\ndataDir=" + dir.resolve("d") + "\ntickTime=500\nmaxDataSize=2048\n"
                + "logRetentionTxns=5000\n");
        ServerConfig c = ServerConfig.fromProperties(ZkServerMain.parse(new String[]{file.toString(), "--port", "0",
                "--max-session-timeout=9000"}));
        assertEquals(0, c.port());
        assertEquals(dir.resolve("d"), c.dataDir());
        assertEquals(500, c.tickTimeMs());
        assertEquals(1000, c.minSessionTimeoutMs());
        assertEquals(9000, c.maxSessionTimeoutMs());
        assertEquals(2048, c.maxDataSize());
        assertEquals(5000, c.logRetentionTxns());
        assertEquals(0, ServerConfig.builder(dir).build().logRetentionTxns());
    }

    @Test
    void badArgumentsFailClearly() {
        assertThrows(IllegalArgumentException.class, () -> ZkServerMain.parse(new String[]{"--nope", "1"}));
        assertThrows(IllegalArgumentException.class, () -> ZkServerMain.parse(new String[]{"--port"}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.fromProperties(ZkServerMain.parse(new String[]{"--port", "1"})));
        assertEquals("dataDir is required", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(ZkServerMain.parse(
                new String[]{"--data-dir", "x", "--tick", "fast"})));
    }
}
