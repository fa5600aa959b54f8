package dev.zkr.testkit.tls;

import dev.zkr.client.TlsConfig;
import dev.zkr.testkit.TlsMaterial;
import dev.zkr.wire.tls.ReloadingSslContext;
import io.netty.handler.ssl.SslContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Renewal of TLS files: unchanged files keep the context, broken ones keep the old one, good ones replace it. */
class ReloadingSslContextTest {

    @TempDir
    Path dir;

    @Test
    void aChangedFileIsReloadedAndABrokenOneKeepsThePreviousContext() throws Exception {
        TlsMaterial m = TlsMaterial.shared();
        Path store = dir.resolve("server.p12");
        Files.copy(m.serverKeyStore(), store);
        ReloadingSslContext c = ReloadingSslContext.server(TlsConfig.builder().keyStore(store, TlsMaterial.PASSWORD)
                .build());
        SslContext first = c.current();
        assertEquals(ReloadingSslContext.Outcome.UNCHANGED, c.check());
        assertSame(first, c.current());

        Files.write(store, new byte[] {1, 2, 3}); // a renewal caught half written
        assertEquals(ReloadingSslContext.Outcome.FAILED, c.check());
        assertSame(first, c.current());
        assertTrue(c.lastError().contains("server.p12"), c.lastError());
        assertEquals(ReloadingSslContext.Outcome.UNCHANGED, c.check(), "the same broken file is not retried");

        Files.copy(m.expiredKeyStore(), store, StandardCopyOption.REPLACE_EXISTING); // loads: dates are the peer's
        assertEquals(ReloadingSslContext.Outcome.RELOADED, c.check());
        assertNotSame(first, c.current());
    }

    @Test
    void materialThatDoesNotLoadAtStartIsRefusedNamingTheFile() {
        Path missing = dir.resolve("missing.p12");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReloadingSslContext.server(
                TlsConfig.builder().keyStore(missing, "x").build()));
        assertTrue(e.getMessage().contains("missing.p12"), e.getMessage());
    }
}
