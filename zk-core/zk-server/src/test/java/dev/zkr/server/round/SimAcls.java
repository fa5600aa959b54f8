package dev.zkr.server.round;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulated clients' ACL traffic ({@link ServerSim.Options#withAcls()}): the ACLs they create nodes with and set
 * (each grants {@code world:anyone} everything, so the data/version register the history checks model is unaffected;
 * the extra {@code digest:}/{@code ip:} entries in varying combinations make the tree's ACL table hold several
 * distinct lists whose reference counts go up and down), and one check on what they see: a node incarnation's ACL
 * at a given aversion is one value, whoever reports it (the create's or setAcl's reply, a getAcl from any server).
 */
final class SimAcls {

    private static final Acl ANYONE_ALL = new Acl(Perms.ALL, Acls.ANYONE_ID_UNSAFE);
    private static final Acl ALICE_READ = Acl.of(Perms.READ, "digest", "alice:XDRn1a8Vh6WbgEYyE0yxCdZZhPo=");
    private static final Acl ALICE_ADMIN = Acl.of(Perms.ADMIN, "digest", "alice:XDRn1a8Vh6WbgEYyE0yxCdZZhPo=");
    private static final Acl BOB_ALL = Acl.of(Perms.ALL, "digest", "bob:4XwyWJcJmcH0Bq6jLkXeS1yYx7Y=");
    private static final Acl NET_RW = Acl.of(Perms.READ | Perms.WRITE, "ip", "10.0.0.0/8");
    private static final Acl HOST_CD = Acl.of(Perms.CREATE | Perms.DELETE, "ip", "192.168.1.7");

    /** Valid ACLs, each giving every session everything; the last one repeats an entry (stored once). */
    static final List<List<Acl>> PALETTE = List.of(
            Acls.OPEN_UNSAFE,
            List.of(ANYONE_ALL, ALICE_READ),
            List.of(ANYONE_ALL, NET_RW),
            List.of(BOB_ALL, ANYONE_ALL),
            List.of(ANYONE_ALL, ALICE_ADMIN, HOST_CD),
            List.of(ANYONE_ALL, BOB_ALL, NET_RW, HOST_CD),
            List.of(ANYONE_ALL, NET_RW, ANYONE_ALL));

    /** A malformed one (an ip: id that is no address): the request fails with InvalidAcl and changes nothing. */
    static final List<Acl> INVALID = List.of(ANYONE_ALL, Acl.of(Perms.READ, "ip", "not-an-address"));

    /** A random ACL: mostly one of the palette, now and then {@link #INVALID}. */
    static List<Acl> pick(SplittableRandom r) {
        return r.nextInt(20) == 0 ? INVALID : PALETTE.get(r.nextInt(PALETTE.size()));
    }

    /** The ACL the server stores for a valid requested one (ZooKeeper's fixupACL: duplicates dropped). */
    static List<Acl> stored(List<Acl> requested) {
        return List.copyOf(new LinkedHashSet<>(requested));
    }

    /** An acknowledged create or setAcl: the txn at its zxid in the final committed log must set this ACL. */
    record Acked(long zxid, String path, List<Acl> acl, boolean create, String what) {
    }

    /** Every acknowledged create and setAcl, in reply order. */
    final java.util.List<Acked> acked = new java.util.ArrayList<>();

    /**
     * A setAcl refused BadVersion or NoNode: on an ensemble the refusal is an error txn at its reply's zxid, decided
     * on the state just before it.
     */
    record Refused(long zxid, String path, int aversion, String code, String what) {
    }

    final java.util.List<Refused> refused = new java.util.ArrayList<>();

    /** The ACL per node incarnation (path, czxid) and aversion, as first seen. */
    private final Map<String, List<Acl>> seen = new HashMap<>();
    long creates;
    long setAcls;
    long getAcls;
    long observations;

    /** A client saw {@code acl} on {@code path} with {@code stat}: it must agree with every earlier sight. */
    void observe(String path, Stat stat, List<Acl> acl, String what) {
        observations++;
        String key = path + " czxid " + dev.zkr.consensus.Zxid.str(stat.czxid()) + " aversion " + stat.aversion();
        List<Acl> before = seen.putIfAbsent(key, List.copyOf(acl));
        if (before != null && !before.equals(acl)) {
            throw new ServerSim.Violation(what + ": " + key + " has ACL " + acl + ", seen before as " + before);
        }
    }
}
