package dev.zkr.auth;

import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class X509AuthProviderTest {

    private static final String ALICE = "CN=alice,O=zkr";

    @Test
    void theIdIsTheCertificateSubjectAndMatchesExactly() {
        Authorizer a = Authorizer.defaults();
        List<Id> ids = a.authenticate("x509", new AuthProvider.ClientInfo("127.0.0.1", ALICE), new byte[] {1});
        assertEquals(List.of(new Id("x509", ALICE)), ids);
        List<Acl> acl = List.of(Acl.of(Perms.READ, "x509", ALICE));
        assertTrue(a.allowed(acl, Perms.READ, ids));
        assertFalse(a.allowed(acl, Perms.WRITE, ids));
        assertFalse(a.allowed(List.of(Acl.of(Perms.READ, "x509", "CN=alice,O=zkr2")), Perms.READ, ids));
        assertFalse(a.allowed(List.of(Acl.of(Perms.READ, "x509", "cn=alice,o=zkr")), Perms.READ, ids));
    }

    @Test
    void withoutCertificateTheSchemeIsRefusedWhateverTheBytes() {
        Authorizer a = Authorizer.defaults();
        assertEquals(List.of(), a.authenticate("x509", new AuthProvider.ClientInfo("127.0.0.1"), ALICE.getBytes()));
    }

    @Test
    void theSuperUserSubjectAlsoGetsSuperAndAuthExpandsToTheSubject() throws Exception {
        Authorizer a = new Authorizer(List.of(new X509AuthProvider("CN=admin,O=zkr")));
        List<Id> root = a.authenticate("x509", new AuthProvider.ClientInfo(null, "CN=admin,O=zkr"), null);
        assertEquals(List.of(DigestAuthProvider.SUPER, new Id("x509", "CN=admin,O=zkr")), root);
        assertTrue(a.allowed(List.of(Acl.of(Perms.ALL, "x509", ALICE)), Perms.ADMIN, root));
        List<Id> alice = a.authenticate("x509", new AuthProvider.ClientInfo(null, ALICE), null);
        assertEquals(List.of(Acl.of(Perms.ALL, "x509", ALICE)),
                a.fixup(List.of(Acl.of(Perms.ALL, "auth", "")), alice));
    }

    @Test
    void theSuperUserComesFromThePropertiesAndTheProviderIsBuiltIn() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("dataDir", "x");
        dev.zkr.server.ServerConfig plain = dev.zkr.server.ServerConfig.fromProperties(p);
        assertEquals(null, plain.x509SuperUser());
        assertEquals(List.of(new Id("x509", ALICE)), plain.authorizer().authenticate("x509",
                new AuthProvider.ClientInfo(null, ALICE), null));
        p.setProperty("ssl.x509SuperUser", " CN=admin,O=zkr ");
        dev.zkr.server.ServerConfig c = dev.zkr.server.ServerConfig.fromProperties(p);
        assertEquals("CN=admin,O=zkr", c.x509SuperUser());
        assertEquals("CN=admin,O=zkr", c.toBuilder().build().x509SuperUser());
        assertTrue(c.authorizer().authenticate("x509", new AuthProvider.ClientInfo(null, "CN=admin,O=zkr"), null)
                .contains(DigestAuthProvider.SUPER));
    }
}
