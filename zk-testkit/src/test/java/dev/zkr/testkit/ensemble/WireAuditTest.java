package dev.zkr.testkit.ensemble;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerConfig;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.regex.Pattern;

import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createRetrying;
import static dev.zkr.testkit.ensemble.RawSockets.frame;
import static dev.zkr.testkit.ensemble.RawSockets.sendAndExpectClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wire audit: Kryo on the client port and on the peer port accepts only registered classes. A frame naming a
 * class by name (Kryo's class-by-name encoding, as an unconfigured Kryo writes a {@code PriorityQueue}), a
 * gadget-style name ({@code TemplatesImpl}) and an unregistered class id each close that connection with one log
 * line, and the ensemble keeps serving. Also the per-IP connection limit ({@code maxClientCnxns}): one host over the
 * limit is refused on accept while another host is served.
 */
@Timeout(120)
class WireAuditTest {

    private static final String GADGET = "com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl";

    /** Frame bodies an attacker might send, each naming a class the port never registered. */
    static Map<String, byte[]> hostileBodies() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        Kryo permissive = new Kryo(); // what a careless peer writes: class names on the wire
        permissive.setRegistrationRequired(false);
        Output o = new Output(256, -1);
        PriorityQueue<Object> queue = new PriorityQueue<>();
        queue.add("a");
        permissive.writeClassAndObject(o, queue);
        m.put("PriorityQueue by class name", o.toBytes());
        Output gadget = new Output(256, -1);
        gadget.writeVarInt(1, true); // Kryo's NAME marker: a class name follows
        gadget.writeVarInt(0, true); // name id
        gadget.writeString(GADGET);
        gadget.writeBytes(new byte[16]);
        m.put("TemplatesImpl by class name", gadget.toBytes());
        Output unregistered = new Output(16, -1);
        unregistered.writeVarInt(999 + 2, true);
        unregistered.writeBytes(new byte[8]);
        m.put("unregistered class id 999", unregistered.toBytes());
        return m;
    }

    @Test
    void unregisteredAndNamedClassesCloseTheConnectionWithOneLogLineOnTheClientAndPeerPorts() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start();
             RawSockets.LogCapture log = new RawSockets.LogCapture()) {
            int leader = e.leader();
            ZkClient through = clientOf(e, leader);
            createRetrying(through, "/audit", new byte[0]);
            int n = 0;
            for (Map.Entry<String, byte[]> body : hostileBodies().entrySet()) {
                List<InetSocketAddress> ports = List.of(
                        new InetSocketAddress("127.0.0.1", e.port(leader)), peerAddress(e, leader));
                for (InetSocketAddress port : ports) {
                    String what = body.getKey() + " to " + port;
                    int local = sendAndExpectClose(port, null, what, frame(body.getValue()));
                    Pattern mine = Pattern.compile(":" + local + "\\b");
                    Ensembles.await(what + ": a log line", () -> !lines(log, mine).isEmpty());
                    List<String> lines = lines(log, mine);
                    assertEquals(1, lines.size(), what + ": " + lines);
                    assertTrue(lines.get(0).contains("bad input"), lines.get(0));
                    assertTrue(e.server(leader).isRunning());
                    createRetrying(through, "/audit/after-" + n++, new byte[0]);
                }
            }
            assertNotNull(through.exists("/audit/after-" + (n - 1)));
        }
    }

    private static List<String> lines(RawSockets.LogCapture log, Pattern port) {
        return log.lines("127.0.0.1").stream().filter(l -> port.matcher(l).find()).toList();
    }

    @Test
    void oneHostOverMaxClientCnxnsIsRefusedWhileAnotherHostIsServed() throws IOException {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("dataDir", "unused");
        p.setProperty("maxClientCnxns", "2");
        int limit = ServerConfig.fromProperties(p).maxConnectionsPerHost(); // ZooKeeper's name, read as zkr's
        assertEquals(2, limit);
        p.setProperty("maxClientCnxns", "0"); // ZooKeeper's "no limit"
        assertEquals(Integer.MAX_VALUE, ServerConfig.fromProperties(p).maxConnectionsPerHost());
        try (TestEnsemble e = TestEnsemble.builder().configure(c -> c.maxConnectionsPerHost(limit)
                .handshakeTimeout(Duration.ofSeconds(60))).start()) {
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", e.port(0));
            InetSocketAddress hostB = new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0);
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < limit; i++) { // host B fills its quota (no handshake: the sockets just stay)
                    Socket s = new Socket();
                    s.bind(hostB);
                    s.connect(server, 5000);
                    held.add(s);
                }
                // connect() returns once the kernel has the connection; the server counts it when it accepts it
                Ensembles.await("host B's connections counted", () -> e.server(0).clientConnections() == limit);
                sendAndExpectClose(server, hostB, "host B over the limit", new byte[0]);
                ZkClient hostA = e.newClient(); // 127.0.0.1: its own quota
                hostA.create("/served", new byte[0], dev.zkr.client.CreateMode.PERSISTENT);
                assertNotNull(hostA.exists("/served"));
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    private static InetSocketAddress peerAddress(TestEnsemble e, int i) {
        for (ServerConfig.Member m : e.server(i).config().members()) {
            if (m.id() == i + 1) {
                return m.peerAddress();
            }
        }
        throw new AssertionError("no member entry for server " + i);
    }
}
