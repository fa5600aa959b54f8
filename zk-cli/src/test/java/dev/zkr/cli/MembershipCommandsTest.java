package dev.zkr.cli;

import dev.zkr.cli.Cli.Result;
import dev.zkr.client.Acls;
import dev.zkr.client.EnsembleMember;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.zkr.cli.Cli.zkr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zkr members} and {@code zkr reconfig} against a real 3-server ensemble, as an operator grows it: read the
 * members, start a fourth server with {@code join=true} and the ensemble id, add it, then remove an original member.
 */
@Timeout(120)
class MembershipCommandsTest {

    private static final String SUPER = "digest:super:admin";

    @Test
    void membersThenAddAJoiningServerThenRemoveOne(@TempDir Path dir) throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).superDigest(Acls.generateDigest("super:admin"))
                .start()) {
            String server = e.connectString();
            Result members = zkr(server, "members");
            assertEquals(0, members.exit(), members::toString);
            assertEquals(3, members.lines().size(), members::toString);
            assertTrue(members.lines().get(0).matches("1=127\\.0\\.0\\.1:\\d+:" + e.port(0) + " \\(voter\\)"),
                    members::toString);
            Result json = zkr(server, "--json", "members");
            assertTrue(json.out().startsWith("[{\"id\":1,\"role\":\"voter\",\"host\":\"127.0.0.1\",\"peerPort\":"),
                    json::toString);

            Result refused = zkr(server, "reconfig", "--remove", "3");
            assertEquals(ExitCode.NOT_ALLOWED, refused.exit(), refused::toString);
            assertTrue(refused.err().startsWith("zkr reconfig: not allowed: "), refused::toString);
            Result bad = zkr(server, "reconfig", "--add", "4=127.0.0.1:x:1", "--auth", SUPER);
            assertEquals(ExitCode.USAGE, bad.exit(), bad::toString);

            // a fourth server, configured as the operator would: the members' lines, its own, join, the ensemble id
            int peer = freePort();
            int client = freePort();
            List<ServerConfig.Member> lines = new ArrayList<>();
            for (String line : members.lines()) {
                String[] idRest = line.split(" ")[0].split("=");
                String[] parts = idRest[1].split(":");
                lines.add(new ServerConfig.Member(Integer.parseInt(idRest[0]), parts[0], Integer.parseInt(parts[1]),
                        Integer.parseInt(parts[2])));
            }
            lines.add(new ServerConfig.Member(4, "127.0.0.1", peer, client));
            ServerConfig config = ServerConfig.builder(dir.resolve("server-4")).serverId(4).port(client)
                    .members(lines).join(true).ensembleId(e.server(0).ensembleId())
                    .electionTimeout(Duration.ofSeconds(1)).heartbeatInterval(Duration.ofMillis(100))
                    .minSessionTimeout(Duration.ofSeconds(4)).build();
            try (ZkServer fourth = ZkServer.start(config)) {
                Result added = zkr(server, "reconfig", "--add", "4=127.0.0.1:" + peer + ":" + client, "--auth", SUPER);
                assertEquals(0, added.exit(), added::toString);
                assertEquals("4=127.0.0.1:" + peer + ":" + client + " (learner)", added.lines().get(3),
                        added::toString);
                // the leader promotes it once it caught up
                fourth.awaitMembership(m -> m.member(4) != null && m.member(4).role() == EnsembleMember.Role.VOTER)
                        .get(30, TimeUnit.SECONDS);
                Result four = zkr("127.0.0.1:" + client, "members");
                assertEquals("4=127.0.0.1:" + peer + ":" + client + " (voter)", four.lines().get(3), four::toString);

                int leader = e.leader();
                int victim = leader == 2 ? 1 : 2;
                Result removed = zkr(server, "reconfig", "--remove", String.valueOf(victim + 1), "--auth", SUPER);
                assertEquals(0, removed.exit(), removed::toString);
                assertEquals(3, removed.lines().size(), removed::toString);
                assertTrue(removed.lines().stream().noneMatch(l -> l.startsWith((victim + 1) + "=")),
                        removed::toString);
                fourth.close();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
