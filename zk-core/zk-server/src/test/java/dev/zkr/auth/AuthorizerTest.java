package dev.zkr.auth;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pure ACL rules: ip matching (IPv4, IPv6, CIDR), digest and super ids, fixup. */
class AuthorizerTest {

    private final Authorizer rules = new Authorizer(List.of(
            new DigestAuthProvider(Acls.generateDigest("super:admin")), new IpAuthProvider()));
    private final IpAuthProvider ip = new IpAuthProvider();

    @Test
    void ipMatchesAddressesAndPrefixesOfBothFamilies() {
        assertTrue(ip.matches("127.0.0.1", "127.0.0.1"));
        assertTrue(ip.matches("127.0.0.1", "127.0.0.0/8"));
        assertTrue(ip.matches("10.1.2.3", "10.1.0.0/16"));
        assertFalse(ip.matches("10.2.2.3", "10.1.0.0/16"));
        assertTrue(ip.matches("10.1.2.3", "0.0.0.0/0"));
        assertTrue(ip.matches("192.168.1.130", "192.168.1.128/25"));
        assertFalse(ip.matches("192.168.1.127", "192.168.1.128/25"));
        assertTrue(ip.matches("0:0:0:0:0:0:0:1", "::1"));
        assertTrue(ip.matches("fd00::1%lo", "fd00::/8"));
        assertFalse(ip.matches("fe80::1", "fd00::/8"));
        assertFalse(ip.matches("127.0.0.1", "::1/128")); // families never match each other
        for (String bad : List.of("10.0.0.0/33", "::/129", "10.0.0.256", "host.example", "10.0.0.0/-1", "10.0.0/8",
                "", "/8")) {
            assertFalse(ip.isValid(bad), bad);
        }
    }

    @Test
    void superPassesAndDigestMatchesExactly() {
        List<Id> superIds = rules.authenticate("digest", new AuthProvider.ClientInfo("127.0.0.1"),
                "super:admin".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of(DigestAuthProvider.SUPER, new Id("digest", Acls.generateDigest("super:admin"))),
                superIds);
        List<Acl> aliceOnly = List.of(new Acl(Perms.ALL, Acls.digest("alice", "pw")));
        assertTrue(rules.allowed(aliceOnly, Perms.ADMIN, superIds));
        assertTrue(rules.allowed(aliceOnly, Perms.READ, List.of(Acls.digest("alice", "pw"))));
        assertFalse(rules.allowed(aliceOnly, Perms.READ, List.of(Acls.digest("alice", "other"))));
        assertFalse(rules.allowed(List.of(new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE)), Perms.WRITE, List.of()));
        assertTrue(rules.allowed(List.of(new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE)), Perms.READ | Perms.ADMIN,
                List.of()));
        assertEquals(List.of(), rules.authenticate("unknown", new AuthProvider.ClientInfo(null), new byte[0]));
    }

    @Test
    void superDigestComesFromTheProperties() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("dataDir", "/tmp/zkr-unused");
        p.setProperty("superDigest", Acls.generateDigest("super:admin"));
        dev.zkr.server.ServerConfig config = dev.zkr.server.ServerConfig.fromProperties(p);
        assertEquals(Acls.generateDigest("super:admin"), config.superDigest());
        assertEquals(DigestAuthProvider.SUPER, config.authorizer().authenticate("digest",
                new AuthProvider.ClientInfo(null), "super:admin".getBytes(StandardCharsets.UTF_8)).get(0));
        p.setProperty("superDigest", "no-colon");
        assertThrows(IllegalArgumentException.class, () -> dev.zkr.server.ServerConfig.fromProperties(p));
    }

    @Test
    void fixupExpandsAuthDropsDuplicatesAndRefusesMalformedAcls() throws Authorizer.InvalidAcl {
        Id alice = Acls.digest("alice", "pw");
        List<Id> ids = List.of(new Id("ip", "127.0.0.1"), alice);
        assertEquals(List.of(new Acl(Perms.ALL, alice)), rules.fixup(Acls.CREATOR_ALL, ids));
        assertEquals(Acls.OPEN_UNSAFE, rules.fixup(List.of(Acls.OPEN_UNSAFE.get(0), Acls.OPEN_UNSAFE.get(0)), ids));
        assertThrows(Authorizer.InvalidAcl.class, () -> rules.fixup(Acls.CREATOR_ALL, List.of(ids.get(0))));
        assertThrows(Authorizer.InvalidAcl.class, () -> rules.fixup(List.of(), ids));
        assertThrows(Authorizer.InvalidAcl.class,
                () -> rules.fixup(List.of(new Acl(32, Acls.ANYONE_ID_UNSAFE)), ids));
        assertThrows(IllegalArgumentException.class, () -> new Authorizer(List.of(new AuthProvider() {
            @Override
            public String scheme() {
                return "world";
            }

            @Override
            public List<Id> authenticate(ClientInfo client, byte[] auth) {
                return List.of();
            }

            @Override
            public boolean matches(String id, String aclExpr) {
                return true;
            }
        })));
    }
}
