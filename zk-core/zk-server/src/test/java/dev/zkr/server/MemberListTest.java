package dev.zkr.server;

import dev.zkr.server.ServerConfig.Member;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemberListTest {

    private static Properties props(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    private static String refusal(Properties p) {
        return assertThrows(IllegalArgumentException.class, () -> MemberList.parse(p)).getMessage();
    }

    @Test
    void linesInIdOrderWithSpacesAndIpv6() {
        List<Member> members = MemberList.parse(props("server.3", " zk3.example.org:2890:2183 ",
                "server.1", "127.0.0.1 : 2888 : 2181", "server.2", "[::1]:2889:2182", "serverId", "2",
                "dataDir", "x"));
        assertEquals(List.of(new Member(1, "127.0.0.1", 2888, 2181), new Member(2, "::1", 2889, 2182),
                new Member(3, "zk3.example.org", 2890, 2183)), members);
        assertEquals(List.of(), MemberList.parse(props("port", "2181", "serverId", "1")), "no lines: standalone");
    }

    /** zkr's form of zoo.cfg's {@code :observer}: {@code observers=4,5} marks those lines observers'. */
    @Test
    void observersMarksTheLinesItNames() {
        List<Member> lines = MemberList.parse(props("server.1", "h:1:2", "server.2", "h:3:4", "server.3", "h:5:6"));
        List<Member> marked = MemberList.withObservers(lines, " 3, 2 ");
        assertEquals(List.of(new Member(1, "h", 1, 2), new Member(2, "h", 3, 4, true), new Member(3, "h", 5, 6, true)),
                marked);
        assertEquals("observers=1,7 names [7], which no server.N line names",
                assertThrows(IllegalArgumentException.class, () -> MemberList.withObservers(lines, "1,7")).getMessage());
        assertEquals("observers=1;2: expected server ids separated by commas, as observers=4,5",
                assertThrows(IllegalArgumentException.class, () -> MemberList.withObservers(lines, "1;2")).getMessage());
    }

    @Test
    void zooKeeperLinesAreRefusedWithZkrsForm() {
        for (String zk : List.of("zk1:2888:3888;2181", "zk1:2888:3888:participant", "zk1:2888:3888:observer",
                "zk1:2888:3888:participant;0.0.0.0:2181", "zk1:2888:3888:2181")) {
            String m = refusal(props("server.1", zk));
            assertTrue(m.startsWith("server.1=" + zk + " looks like a ZooKeeper line"), m);
            assertTrue(m.contains("zkr's form is server.N=host:peerPort:clientPort"), m);
        }
    }

    @Test
    void badKeysIdsAndPortsAreRefused() {
        assertEquals("'server.x' is not a member line: zkr's form is server.N=host:peerPort:clientPort with N in "
                + "1..255", refusal(props("server.x", "h:1:2")));
        assertTrue(refusal(props("server.", "h:1:2")).startsWith("'server.' is not a member line"));
        assertTrue(refusal(props("server.1.role", "h:1:2")).startsWith("'server.1.role' is not a member line"));
        assertEquals("server.0: server id must be in 1..255", refusal(props("server.0", "h:1:2")));
        assertEquals("server.256: server id must be in 1..255", refusal(props("server.256", "h:1:2")));
        String twice = refusal(props("server.2", "h:1:2", "server.02", "h:3:4"));
        assertTrue(twice.matches("server\\.0?2 and server\\.0?2 name the same server id 2"), twice);
        assertEquals("server.1=h:2888: expected server.N=host:peerPort:clientPort",
                refusal(props("server.1", "h:2888")));
        assertEquals("server.1=h: expected server.N=host:peerPort:clientPort", refusal(props("server.1", "h")));
        assertEquals("server.1=:2888:2181: expected server.N=host:peerPort:clientPort",
                refusal(props("server.1", ":2888:2181")));
        assertEquals("server.1=[::1:2888:2181: expected server.N=host:peerPort:clientPort (IPv6 as [address])",
                refusal(props("server.1", "[::1:2888:2181")));
        assertEquals("server.1=h:peer:2181: peerPort is not a number: 'peer' (expected "
                + "server.N=host:peerPort:clientPort)", refusal(props("server.1", "h:peer:2181")));
        assertEquals("server.1=h:2888:: clientPort is not a number: '' (expected server.N=host:peerPort:clientPort)",
                refusal(props("server.1", "h:2888:")));
        assertEquals("server.1=h:2888:0: clientPort must be in 1..65535", refusal(props("server.1", "h:2888:0")));
        assertEquals("server.1=h:65536:2181: peerPort must be in 1..65535",
                refusal(props("server.1", "h:65536:2181")));
    }

    @Test
    void everyPeerAndClientAddressMustBeDistinct() {
        MemberList.checkDistinct(List.of(new Member(1, "a", 2888, 2181), new Member(2, "b", 2888, 2181)));
        MemberList.checkDistinct(List.of(new Member(1, "h", 0, 0), new Member(2, "h", 0, 0))); // chosen at bind
        assertEquals("h:2888 is both the peer port of server.1 and the peer port of server.2: every peer and client "
                        + "port of the member list must be distinct",
                assertThrows(IllegalArgumentException.class, () -> MemberList.checkDistinct(List.of(
                        new Member(1, "h", 2888, 2181), new Member(2, "H", 2888, 2182)))).getMessage());
        assertEquals("h:2182 is both the client port of server.1 and the peer port of server.2: every peer and "
                        + "client port of the member list must be distinct",
                assertThrows(IllegalArgumentException.class, () -> MemberList.checkDistinct(List.of(
                        new Member(1, "h", 2888, 2182), new Member(2, "h", 2182, 2183)))).getMessage());
        assertEquals("h:2181 is both the peer port of server.1 and the client port of server.1: every peer and "
                        + "client port of the member list must be distinct",
                assertThrows(IllegalArgumentException.class, () -> MemberList.checkDistinct(List.of(
                        new Member(1, "h", 2181, 2181)))).getMessage());
        assertEquals("server.1 appears twice in the member list",
                assertThrows(IllegalArgumentException.class, () -> MemberList.checkDistinct(List.of(
                        new Member(1, "a", 1, 2), new Member(1, "b", 1, 2)))).getMessage());
    }

    @Test
    void evenSizesWarn() {
        assertEquals(Optional.empty(), MemberList.sizeWarning(0));
        assertEquals(Optional.empty(), MemberList.sizeWarning(1));
        assertEquals(Optional.empty(), MemberList.sizeWarning(3));
        assertEquals(Optional.empty(), MemberList.sizeWarning(5));
        assertEquals(Optional.of("an ensemble of 2 tolerates no server failure (a majority of 2 is 2); run 1, 3 "
                + "or 5 servers"), MemberList.sizeWarning(2));
        assertEquals(Optional.of("an ensemble of 4 tolerates no more failures than one of 3 (1); run an odd number "
                + "of servers"), MemberList.sizeWarning(4));
    }
}
