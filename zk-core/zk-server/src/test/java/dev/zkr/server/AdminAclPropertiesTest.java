package dev.zkr.server;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two ports agree: for drawn ACLs (world, digest users, ip ranges, several entries), identities (anonymous,
 * right and wrong digest passwords, the super user) and nodes (a parent and its children), the admin endpoint
 * reveals a node's data exactly when the client port's {@code getData} succeeds for the same identity, and lists a
 * node's children exactly when {@code getChildren} succeeds. One real server for the whole property; each HTTP
 * request comes from its own loopback source address, so the guessing wait of one (a wrong password is a refused
 * attempt) never answers another.
 */
class AdminAclPropertiesTest {

    /** The identities: the digest {@code user:password} each one sends on both ports, or "" for none. */
    static final Map<String, String> IDENTITIES = new LinkedHashMap<>();

    static {
        IDENTITIES.put("anonymous", "");
        IDENTITIES.put("alice", "alice:pa");
        IDENTITIES.put("alice-wrong", "alice:not-pa");
        IDENTITIES.put("bob", "bob:pb");
        IDENTITIES.put("super", "super:root");
    }

    static Path dir;
    static ZkServer server;
    static final Map<String, ZkClient> clients = new LinkedHashMap<>();
    static final AtomicInteger nodes = new AtomicInteger();
    /** The next loopback source address (127.0.x.y): a fresh one per request. */
    static final AtomicInteger source = new AtomicInteger(1 << 8);

    @BeforeContainer
    static void start() throws IOException {
        dir = Files.createTempDirectory("zkr-admin-acl");
        server = ZkServer.start(ServerFixture.config(dir).adminPort(0)
                .superDigest(Acls.generateDigest("super:root")).build());
        IDENTITIES.forEach((name, digest) -> {
            var b = ZkClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(30));
            if (!digest.isEmpty()) {
                b.authInfo("digest", digest.getBytes(StandardCharsets.UTF_8));
            }
            clients.put(name, b.build());
        });
    }

    @AfterContainer
    static void stop() throws IOException {
        clients.values().forEach(ZkClient::close);
        server.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One ACL entry: the perms and the id. */
    @Provide
    Arbitrary<List<Acl>> acls() {
        Arbitrary<Id> ids = Arbitraries.of(Acls.ANYONE_ID_UNSAFE, Acls.digest("alice", "pa"), Acls.digest("bob", "pb"),
                // ip ranges that hold both the client port's 127.0.0.1 and the requests' 127.0.x.y, or neither
                new Id("ip", "127.0.0.0/8"), new Id("ip", "10.0.0.0/8"));
        Arbitrary<Integer> perms = Arbitraries.of(Perms.READ, Perms.ALL, Perms.ALL & ~Perms.READ, Perms.WRITE,
                Perms.READ | Perms.CREATE);
        Arbitrary<Acl> entry = Combinators.combine(perms, ids).as(Acl::new);
        return entry.list().ofMinSize(1).ofMaxSize(3).uniqueElements();
    }

    @Property
    void theAdminEndpointRevealsExactlyWhatTheClientPortDoes(@ForAll("acls") List<Acl> parentAcl,
            @ForAll("childAcls") List<List<Acl>> childAcls) throws Exception {
        ZkClient root = clients.get("super"); // passes every ACL: it can build any shape
        String parent = "/p" + nodes.incrementAndGet();
        root.create(parent, data(parent), CreateMode.PERSISTENT, parentAcl);
        List<String> children = new ArrayList<>();
        for (List<Acl> acl : childAcls) {
            String child = parent + "/c" + children.size();
            root.create(child, data(child), CreateMode.PERSISTENT, acl);
            children.add(child);
        }
        for (Map.Entry<String, String> who : IDENTITIES.entrySet()) {
            ZkClient c = clients.get(who.getKey());
            String basic = who.getValue();
            for (String path : concat(parent, children)) {
                boolean readable = readable(c, path);
                Reply node = get("/api/node?path=" + path, basic);
                String what = who.getKey() + " reading " + path + " with ACL " + acl(root, path);
                if (readable) {
                    assertEquals(200, node.status(), what + ": " + node.body());
                    assertTrue(node.body().contains(b64(data(path))), what + ": " + node.body());
                } else {
                    assertEquals(401, node.status(), what + ": " + node.body());
                    assertFalse(node.body().contains(b64(data(path))), what + ": " + node.body());
                }
            }
            boolean listable;
            try {
                c.getChildren(parent);
                listable = true;
            } catch (ZkException.NoAuth e) {
                listable = false;
            }
            Reply list = get("/api/children?path=" + parent, basic);
            String what = who.getKey() + " listing " + parent + " with ACL " + acl(root, parent);
            assertEquals(listable ? 200 : 401, list.status(), what + ": " + list.body());
            for (String child : children) {
                String name = child.substring(parent.length() + 1);
                boolean shown = list.body().contains(b64(data(child)));
                if (listable) {
                    assertTrue(list.body().contains("\"name\":\"" + name + "\""), what + ": " + list.body());
                    assertEquals(readable(c, child), shown, what + ", the data of " + child + ": " + list.body());
                    assertEquals(readable(c, child), list.body().contains("\"name\":\"" + name
                            + "\",\"permission\":true"), what + ", the Stat of " + child + ": " + list.body());
                } else {
                    assertFalse(shown || list.body().contains(name), what + ": " + list.body());
                }
            }
        }
    }

    @Provide
    Arbitrary<List<List<Acl>>> childAcls() {
        return acls().list().ofMinSize(0).ofMaxSize(3);
    }

    private static boolean readable(ZkClient c, String path) {
        try {
            c.getData(path);
            return true;
        } catch (ZkException.NoAuth e) {
            return false;
        }
    }

    private static String acl(ZkClient root, String path) {
        return root.getAcl(path).acls().toString();
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    private static byte[] data(String path) {
        return ("data of " + path).getBytes(StandardCharsets.UTF_8);
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    record Reply(int status, String body) {
    }

    /** A GET from a fresh loopback source address, with Basic credentials unless {@code basic} is empty. */
    static Reply get(String target, String basic) throws IOException {
        int n = source.getAndIncrement();
        InetAddress from = InetAddress.getByAddress(new byte[] {127, 0, (byte) (n >> 8), (byte) n});
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.adminPort()), 5_000);
            s.setSoTimeout(10_000);
            StringBuilder req = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n");
            if (!basic.isEmpty()) {
                req.append("Authorization: Basic ").append(b64(basic.getBytes(StandardCharsets.UTF_8))).append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(req.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all); // every answer closes its connection
            String text = all.toString(StandardCharsets.UTF_8);
            int status = Integer.parseInt(text.substring(9, 12));
            return new Reply(status, text.substring(text.indexOf("\r\n\r\n") + 4));
        }
    }
}
