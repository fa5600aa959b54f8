package dev.zkr.apache.conformance;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Perms;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** The small values steps are made of, each with a short {@code toString} for shrunk failure reports. */
final class Args {

    private Args() {
    }

    /** Extra create paths: prefixes for sequential names, one ending with {@code /} (valid only when sequential). */
    static final String[] CREATE_ONLY = {"s-", "a/s-", "a/", "d/q-"};

    /**
     * A node: a fixed relative path, or ({@code seq >= 0}) the {@code seq}-th (modulo count) sequential node
     * created so far in this try.
     */
    record PathRef(String rel, int seq) {
        static PathRef of(String rel) {
            return new PathRef(rel, -1);
        }

        static PathRef seq(int k) {
            return new PathRef(null, k);
        }

        @Override
        public String toString() {
            return seq >= 0 ? "seq#" + seq : rel.isEmpty() ? "." : rel;
        }
    }

    /** Node data: {@code n == 0} empty, {@code n > 0} the text "d" + n, {@link #BIG} 2 MiB (over both limits). */
    record Data(int n) {
        static final int BIG_SIZE = 2 * 1024 * 1024;
        static final Data BIG = new Data(-1);

        boolean big() {
            return n < 0;
        }

        byte[] bytes() {
            if (big()) {
                byte[] b = new byte[BIG_SIZE];
                Arrays.fill(b, (byte) 'x');
                return b;
            }
            return n == 0 ? new byte[0] : ("d" + n).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return big() ? "BIG(2MiB)" : n == 0 ? "''" : "'d" + n + "'";
        }
    }

    /** A version argument: -1, the node's current version, or a wrong one (current + 1). */
    enum Version {
        ANY, CURRENT, WRONG
    }

    /**
     * The ACLs ACL steps set, a small fixed set. None of them is one zkr refuses on purpose where ZooKeeper accepts
     * it (permission bits 0 or above ALL, ip host names; docs/differences-from-zookeeper.md,
     * "TLS and security"). {@link #CREATOR_ALL} is {@code InvalidAcl} on both for a session without a digest id.
     */
    enum AclChoice {
        OPEN(Acls.OPEN_UNSAFE),
        CREATOR_ALL(Acls.CREATOR_ALL),
        READ_ONLY(Acls.READ_ONLY),
        ALICE_ALL(List.of(new Acl(Perms.ALL, Credential.ALICE.id()))),
        /** alice may do anything, bob may read (getAcl by bob shows alice's digest masked). */
        ALICE_ALL_BOB_READ(List.of(new Acl(Perms.ALL, Credential.ALICE.id()), new Acl(Perms.READ,
                Credential.BOB.id()))),
        /** everyone reads, only bob writes and administers. */
        WORLD_READ_BOB_WRITE_ADMIN(List.of(new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE),
                new Acl(Perms.WRITE | Perms.ADMIN, Credential.BOB.id()))),
        NO_DELETE(world(Perms.ALL & ~Perms.DELETE)),
        NO_CREATE(world(Perms.ALL & ~Perms.CREATE)),
        NO_READ(world(Perms.ALL & ~Perms.READ)),
        NO_WRITE(world(Perms.ALL & ~Perms.WRITE)),
        NO_ADMIN(world(Perms.ALL & ~Perms.ADMIN)),
        /** the clients' own address (every connection holds {@code ip:127.0.0.1}): all but DELETE and ADMIN. */
        IP_LOCAL(List.of(Acl.of(Perms.READ | Perms.WRITE | Perms.CREATE, "ip", "127.0.0.1"))),
        /** another network gets everything, everyone else only READ. */
        IP_FAR_WORLD_READ(List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/8"), new Acl(Perms.READ,
                Acls.ANYONE_ID_UNSAFE)));

        private final List<Acl> acls;

        AclChoice(List<Acl> acls) {
            this.acls = acls;
        }

        List<Acl> acls() {
            return acls;
        }

        private static List<Acl> world(int perms) {
            return List.of(new Acl(perms, Acls.ANYONE_ID_UNSAFE));
        }
    }

    /**
     * The digest credentials sessions authenticate with: always accepted (a wrong password is another id, never a
     * refusal: a refused authentication closes ZooKeeper's connection but not zkr's, a difference on purpose), and
     * few, so that a connection stays far below zkr's 16 ids.
     */
    enum Credential {
        ALICE("alice", "secret"),
        BOB("bob", "pw"),
        /** alice's name with a wrong password: a different id, which alice's ACL entries refuse. */
        ALICE_WRONG("alice", "wrong"),
        /** the super user both servers are started with ({@link Backends#SUPER}): passes every check. */
        SUPER("super", "conformance");

        private final String user;
        private final String password;

        Credential(String user, String password) {
            this.user = user;
            this.password = password;
        }

        byte[] bytes() {
            return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
        }

        dev.zkr.client.Id id() {
            return Acls.digest(user, password);
        }
    }

    /** Paths every check on both backends must reject (relative to the try's root where they start with /). */
    static final String[] INVALID = {"/a/", "//a", "/a//b", "/./a", "/a/..", "/a\u0000b", "/a\u0001", "/a\ud800",
        "relative", ""};

    static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
