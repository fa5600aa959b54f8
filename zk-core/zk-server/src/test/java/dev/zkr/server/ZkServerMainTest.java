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

    @Test
    void abuseLimitsHaveDefaultsFlagsAndProperties() {
        ServerConfig d = ServerConfig.fromProperties(ZkServerMain.parse(new String[]{"--data-dir", "x"}));
        assertEquals(60, d.maxConnectionsPerHost());
        assertEquals(100_000, d.maxEphemeralsPerSession());
        assertEquals(64 << 20, d.maxOutboundBytesPerConnection());
        assertEquals(512L << 20, d.maxOutboundBytesTotal());
        assertEquals(256L << 20, d.maxInboundBytesTotal());
        assertEquals(java.time.Duration.ofSeconds(15), d.slowReaderTimeout());
        ServerConfig c = ServerConfig.fromProperties(ZkServerMain.parse(new String[]{"--data-dir", "x",
                "--max-connections-per-host", "5", "--max-ephemerals-per-session=7", "--slow-reader-timeout", "2500",
                "--max-outbound-bytes-per-connection", "20000000", "--max-outbound-bytes-total", "30000000",
                "--outbound-high-water-mark", "131072", "--max-inbound-bytes-total", "40000000"}));
        assertEquals(5, c.maxConnectionsPerHost());
        assertEquals(7, c.maxEphemeralsPerSession());
        assertEquals(java.time.Duration.ofMillis(2500), c.slowReaderTimeout());
        assertEquals(20_000_000, c.maxOutboundBytesPerConnection());
        assertEquals(30_000_000, c.maxOutboundBytesTotal());
        assertEquals(131072, c.outboundHighWaterMark());
        assertEquals(40_000_000, c.maxInboundBytesTotal());
        java.util.Properties zk = new java.util.Properties();
        zk.setProperty("dataDir", "x");
        zk.setProperty("maxClientCnxns", "9"); // ZooKeeper's name is accepted
        assertEquals(9, ServerConfig.fromProperties(zk).maxConnectionsPerHost());
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(ZkServerMain.parse(
                new String[]{"--data-dir", "x", "--max-outbound-bytes-per-connection", "1000"})));
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(ZkServerMain.parse(
                new String[]{"--data-dir", "x", "--max-inbound-bytes-total", "1000"})), "less than one frame");
    }
}
