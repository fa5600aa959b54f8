package dev.zkr.cli;

import dev.zkr.cli.Cli.Result;
import dev.zkr.cli.shell.Shell;
import dev.zkr.client.Acls;
import dev.zkr.client.Perms;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static dev.zkr.cli.Cli.zkr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ACL commands end to end: in-process {@code zkr} against a real zkr server on loopback. */
class AclCommandsTest {

    private static final String BOB = "digest:bob:secret";
    private static final String BOB_ID = Acls.generateDigest("bob:secret");

    private static TestEnsemble ensemble;
    private static ZkClient client;
    private static String server;

    @BeforeAll
    static void start() {
        ensemble = TestEnsemble.builder().start();
        client = ensemble.newClient();
        server = ensemble.connectString();
    }

    @AfterAll
    static void stop() {
        ensemble.close();
    }

    private static void ok(Result r) {
        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.err(), r::toString);
    }

    /** A failure: the exit code and exactly one line on stderr, nothing on stdout. */
    private static void fails(Result r, int exit, String errContains) {
        assertEquals(exit, r.exit(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertTrue(r.err().endsWith("\n") && r.err().indexOf('\n') == r.err().length() - 1, () -> "one line: " + r);
        assertTrue(r.err().contains(errContains), r::toString);
    }

    @Test
    void aProtectedNodeIsReadWithAuthAndRefusedWithout() {
        Result created = zkr(server, "--auth", BOB, "create", "-p", "--acl", "auth::cdrwa", "/a1/secret", "hush");
        ok(created);
        assertEquals(List.of("/a1/secret"), created.lines());
        ZkClient bob = ensemble.newClient(b -> b.authInfo("digest", "bob:secret".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of(dev.zkr.client.Acl.of(Perms.ALL, "digest", BOB_ID)), bob.getAcl("/a1/secret").acls());
        assertEquals(Acls.OPEN_UNSAFE, client.getAcl("/a1").acls()); // -p parents stay open

        fails(zkr(server, "get", "/a1/secret"), ExitCode.NOT_ALLOWED, "zkr get: not allowed on /a1/secret");
        fails(zkr(server, "--auth", "digest:bob:wrong", "get", "/a1/secret"), ExitCode.NOT_ALLOWED, "not allowed");
        fails(zkr(server, "set", "/a1/secret", "x"), ExitCode.NOT_ALLOWED, "zkr set: not allowed on /a1/secret");
        fails(zkr(server, "getacl", "/a1/secret"), ExitCode.NOT_ALLOWED, "zkr getacl: not allowed");
        Result get = zkr(server, "--auth", BOB, "get", "/a1/secret");
        ok(get);
        assertEquals(List.of("hush"), get.lines());
        Result after = zkr(server, "get", "/a1/secret", "--auth", BOB); // a global option after the command
        ok(after);
        assertEquals(List.of("hush"), after.lines());

        Result acl = zkr(server, "--auth", BOB, "getacl", "/a1/secret");
        ok(acl);
        assertEquals(List.of("digest:" + BOB_ID + ":cdrwa"), acl.lines());
        Result json = zkr(server, "--auth", BOB, "--json", "getacl", "/a1/secret");
        ok(json);
        assertTrue(json.out().startsWith("{\"path\":\"/a1/secret\",\"acl\":[{\"scheme\":\"digest\",\"id\":\""
                + BOB_ID + "\",\"perms\":\"cdrwa\"}],\"stat\":{"), json::toString);
        assertTrue(json.out().contains("\"aversion\":0"), json::toString);
    }

    @Test
    void setaclChecksTheAclVersionAndTheNewAclApplies() {
        ok(zkr(server, "--auth", BOB, "create", "--acl", "digest:" + BOB_ID + ":cdrwa,world:anyone:r", "/a2", "v"));
        Result open = zkr(server, "getacl", "-s", "/a2"); // READ is enough to read the ACL; the hash is masked
        ok(open);
        assertEquals("digest:bob:x:cdrwa", open.lines().get(0));
        assertEquals("world:anyone:r", open.lines().get(1));
        assertTrue(open.lines().contains("aclVersion = 0"), open::toString);

        fails(zkr(server, "--auth", BOB, "setacl", "-v", "3", "/a2", "world:anyone:cdrwa"), ExitCode.NODE,
                "zkr setacl: version mismatch on /a2");
        fails(zkr(server, "setacl", "/a2", "world:anyone:cdrwa"), ExitCode.NOT_ALLOWED, "not allowed on /a2");
        assertEquals(0, client.exists("/a2").aversion());

        Result set = zkr(server, "--auth", BOB, "--json", "setacl", "-v", "0", "/a2", "ip:127.0.0.1:rw,world:anyone:r");
        ok(set);
        assertTrue(set.out().contains("\"aversion\":1"), set::toString);
        ok(zkr(server, "set", "/a2", "from loopback")); // ip:127.0.0.1 grants WRITE
        fails(zkr(server, "create", "/a2/child"), ExitCode.NOT_ALLOWED, "zkr create: not allowed on /a2/child");
        Result acl = zkr(server, "getacl", "/a2");
        ok(acl);
        assertEquals(List.of("ip:127.0.0.1:rw", "world:anyone:r"), acl.lines());
        fails(zkr(server, "--auth", BOB, "setacl", "-v", "0", "/a2", "world:anyone:r"), ExitCode.NOT_ALLOWED,
                "not allowed on /a2"); // no ADMIN left for bob: the ACL check comes before the version check
    }

    @Test
    void malformedAclsRefusedAuthenticationAndBadAuthOptions() {
        fails(zkr(server, "create", "--acl", "world:anyone:rz", "/a3"), ExitCode.USAGE,
                "zkr create: unknown permission 'z'");
        fails(zkr(server, "create", "--acl", "nosuch:thing:r", "/a3"), ExitCode.USAGE,
                "zkr create: invalid ACL for /a3");
        fails(zkr(server, "create", "--acl", "auth::cdrwa", "/a3"), ExitCode.USAGE,
                "zkr create: invalid ACL for /a3: auth: the session has no authenticated id");
        fails(zkr(server, "create", "--acl", "ip:10.0.0.0/33:r", "/a3"), ExitCode.USAGE, "invalid ACL for /a3");
        assertEquals(null, client.exists("/a3"));
        fails(zkr(server, "--auth", "digest:no-colon", "ls", "/"), ExitCode.NOT_ALLOWED,
                "zkr ls: authentication failed");
        fails(zkr(server, "--auth", "nosuch:x", "ls", "/"), ExitCode.NOT_ALLOWED, "authentication failed");
        fails(zkr(server, "--auth", "digest", "ls", "/"), ExitCode.USAGE, "--auth needs scheme:auth");
        fails(zkr(server, "addauth", "nosuch", "x"), ExitCode.NOT_ALLOWED, "zkr addauth: authentication failed");
    }

    @Test
    void addauthInTheShellHoldsForTheSession(@TempDir Path dir) throws Exception {
        client.create("/a4", "v".getBytes(StandardCharsets.UTF_8), dev.zkr.client.CreateMode.PERSISTENT,
                List.of(dev.zkr.client.Acl.of(Perms.ALL, "digest", BOB_ID)));
        String input = String.join("\n",
                "get /a4",
                "addauth digest bob:secret",
                "get /a4",
                "getacl /a4",
                "create --acl auth::rw /a4/child c",
                "getacl /a4/child",
                "exit") + "\n";
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Session session = new Session(server, false, Duration.ofSeconds(10));
             Terminal terminal = new DumbTerminal("test", "dumb",
                     new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), screen, StandardCharsets.UTF_8)) {
            assertEquals(0, new Shell(terminal, session, dir.resolve("h")).run());
        }
        String out = screen.toString(StandardCharsets.UTF_8).replace("\r", "");
        List<String> lines = out.lines().map(l -> l.replaceAll("^(zkr \\S+> )+", "")).toList();
        assertTrue(lines.contains("zkr get: not allowed on /a4 (the node's ACL grants this session no such "
                + "permission; authenticate with --auth scheme:auth)"), out);
        assertTrue(lines.contains("v"), out);
        assertTrue(lines.contains("digest:" + BOB_ID + ":cdrwa"), out);
        assertTrue(lines.contains("/a4/child"), out);
        assertTrue(lines.contains("digest:bob:x:rw"), out); // READ without ADMIN: the server masks the hash

        // --auth on a shell line is added to the shell's session, as addauth
        String again = "get /a4 --auth digest:bob:secret\nset /a4 w\nexit\n";
        ByteArrayOutputStream screen2 = new ByteArrayOutputStream();
        try (Session session = new Session(server, false, Duration.ofSeconds(10));
             Terminal terminal = new DumbTerminal("test", "dumb",
                     new ByteArrayInputStream(again.getBytes(StandardCharsets.UTF_8)), screen2, StandardCharsets.UTF_8)) {
            assertEquals(0, new Shell(terminal, session, dir.resolve("h2")).run());
        }
        String out2 = screen2.toString(StandardCharsets.UTF_8).replace("\r", "");
        assertTrue(out2.contains("> v\n"), out2);
        assertTrue(!out2.contains("not allowed"), out2);
        assertEquals("w", new String(ensemble.newClient(b -> b.authInfo("digest",
                "bob:secret".getBytes(StandardCharsets.UTF_8))).getData("/a4").data(), StandardCharsets.UTF_8));
    }
}
