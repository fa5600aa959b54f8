package dev.zkr.cli;

import dev.zkr.client.Acl;
import dev.zkr.client.Perms;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AclSyntaxTest {

    @Test
    void parsesZkCliEntries() {
        assertEquals(Acl.of(Perms.ALL, "world", "anyone"), AclSyntax.parse("world:anyone:cdrwa"));
        assertEquals(Acl.of(Perms.READ | Perms.WRITE, "digest", "bob:HASH="), AclSyntax.parse("digest:bob:HASH=:rw"));
        assertEquals(Acl.of(Perms.READ, "ip", "10.0.0.0/8"), AclSyntax.parse("ip:10.0.0.0/8:r"));
        assertEquals(Acl.of(Perms.READ, "ip", "fd00::/8"), AclSyntax.parse("ip:fd00::/8:r"));
        assertEquals(Acl.of(Perms.ALL, "auth", ""), AclSyntax.parse("auth::cdrwa"));
        assertEquals(Acl.of(Perms.ALL, "auth", ""), AclSyntax.parse("auth::awrdc")); // any order
        assertEquals(Acl.of(Perms.CREATE | Perms.DELETE, "world", "anyone"), AclSyntax.parse("world:anyone:cd"));
    }

    @Test
    void parsesListsAndKeepsCommasInsideX509Subjects() {
        assertEquals(List.of(Acl.of(Perms.ALL, "digest", "bob:h"), Acl.of(Perms.READ, "world", "anyone")),
                AclSyntax.parseList("digest:bob:h:cdrwa,world:anyone:r"));
        assertEquals(List.of(Acl.of(Perms.ALL, "x509", "CN=alice,OU=ops,O=zkr"), Acl.of(Perms.READ, "ip", "10.1.2.3")),
                AclSyntax.parseList("x509:CN=alice,OU=ops,O=zkr:cdrwa,ip:10.1.2.3:r"));
        assertEquals(List.of(Acl.of(Perms.READ, "x509", "CN=a,O=b")), AclSyntax.parseList("x509:CN=a,O=b:r"));
    }

    @Test
    void formatsAsItParses() {
        for (String s : List.of("digest:bob:HASH=:cdrwa", "world:anyone:r", "ip:fd00::/8:rw",
                "x509:CN=alice,O=zkr:ca", "auth::cdrwa")) {
            assertEquals(s, AclSyntax.format(AclSyntax.parse(s)));
        }
        assertEquals("cdrwa", AclSyntax.letters(Perms.ALL));
        assertEquals("rw", AclSyntax.letters(Perms.WRITE | Perms.READ));
        assertEquals("", AclSyntax.letters(0));
    }

    @Test
    void malformedEntriesAreUsageErrorsNamingTheProblem() {
        assertMessage("world:anyone:rz", "unknown permission 'z'");
        assertMessage("world:anyone:", "no permissions");
        assertMessage("world:anyone", "not an ACL entry");
        assertMessage(":anyone:r", "not an ACL entry");
        assertMessage("cdrwa", "not an ACL entry");
        assertMessage("", "empty ACL");
        assertMessage("world:anyone:r,", "unknown permission ','");
        assertMessage("world:anyone:r,,ip:1.2.3.4:r", "unknown permission ','");
    }

    private static void assertMessage(String acl, String contains) {
        UsageException e = assertThrows(UsageException.class, () -> AclSyntax.parseList(acl));
        assertTrue(e.getMessage().contains(contains), e.getMessage());
    }

    @Test
    void authIsSchemeThenEverythingAfterTheFirstColon() {
        AclSyntax.Auth a = AclSyntax.parseAuth("digest:bob:s:e:cret");
        assertEquals("digest", a.scheme());
        assertEquals("bob:s:e:cret", new String(a.auth(), StandardCharsets.UTF_8));
        assertEquals(0, AclSyntax.parseAuth("x509:").auth().length);
        assertThrows(UsageException.class, () -> AclSyntax.parseAuth("digest"));
        assertThrows(UsageException.class, () -> AclSyntax.parseAuth(":bob:pw"));
    }
}
