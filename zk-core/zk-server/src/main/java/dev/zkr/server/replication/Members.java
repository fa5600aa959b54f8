package dev.zkr.server.replication;

import dev.zkr.consensus.Membership;
import dev.zkr.consensus.MembershipCodec;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's side of membership records (docs/membership.md): the {@link MembershipCodec} through which the
 * consensus core reads a {@link Txn.Membership} log record as a {@link Membership} (voters; learners and observers
 * both as learners), and the members' addresses and roles learned from every record it read, the snapshot's and the
 * configured {@code server.N} lines, so that a server reaches a member it was never configured with. Server ids are
 * never reused, so what is learned of an id stays true. Read from any thread; learned on the round thread (and at
 * recovery).
 */
public final class Members implements MembershipCodec {

    private final Map<Integer, dev.zkr.client.EnsembleMember> known = new ConcurrentHashMap<>();
    /** The ids of every member configured or seen in a record (ids are never reused). */
    private final java.util.Set<Integer> everMember = ConcurrentHashMap.newKeySet();
    /**
     * This server's own view of the members its lines name: where it reaches them. A record carries the addresses
     * the leader knew, which differ from this server's where members reach each other at addresses that differ from
     * member to member (NAT, a proxy per link: {@code ensembleName}), so for these ids the lines win.
     */
    private final Map<Integer, dev.zkr.client.EnsembleMember> configured = new ConcurrentHashMap<>();

    /** Starts from the configured members (voters, as the static membership is). */
    public Members(Collection<dev.zkr.client.EnsembleMember> configured) {
        configured.forEach(m -> {
            known.put(m.id(), m);
            this.configured.put(m.id(), m);
            everMember.add(m.id());
        });
    }

    /** The server proposes its records through its pipeline (a txn), never through the consensus core's encoding. */
    @Override
    public byte[] encode(Membership m) {
        throw new UnsupportedOperationException("the server's membership records are txns (Txn.Membership)");
    }

    @Override
    public Membership decode(byte[] payload) {
        Txn.Membership m = TxnCodec.membershipOf(payload);
        if (m == null) {
            return null;
        }
        learn(m);
        return toConsensus(m);
    }

    /** Remembers every member's address (unless this server's lines name it) and role. */
    public void learn(Txn.Membership m) {
        m.members().forEach(x -> {
            dev.zkr.client.EnsembleMember mine = configured.get(x.id());
            known.put(x.id(), mine == null ? x : mine.withRole(x.role()));
            everMember.add(x.id());
        });
    }

    /** The address and role of a server a change asks to add (its record, once made, carries them). */
    void learnAsked(dev.zkr.client.EnsembleMember m) {
        known.put(m.id(), m);
    }

    /**
     * Whether {@code id} was configured or in a record this server read (since the oldest record it holds, or the
     * snapshot's): such an id is never given to a new server.
     */
    public boolean wasMember(int id) {
        return everMember.contains(id);
    }

    /** Voters as voters, learners and observers as learners (neither counts toward a quorum). */
    public static Membership toConsensus(Txn.Membership m) {
        List<Integer> learners = new ArrayList<>(m.ids(dev.zkr.client.EnsembleMember.Role.LEARNER));
        learners.addAll(m.ids(dev.zkr.client.EnsembleMember.Role.OBSERVER));
        return new Membership(m.ids(dev.zkr.client.EnsembleMember.Role.VOTER), learners);
    }

    /**
     * The record for consensus membership {@code m}: each member's address as learned, its role a voter's if it
     * votes, else the role it was added with (learner or observer).
     *
     * @throws IllegalStateException a member whose address was never learned
     */
    public Txn.Membership record(Membership m) {
        List<dev.zkr.client.EnsembleMember> out = new ArrayList<>();
        for (int id : m.members()) {
            dev.zkr.client.EnsembleMember x = known.get(id);
            if (x == null) {
                throw new IllegalStateException("no address known for server " + id);
            }
            dev.zkr.client.EnsembleMember.Role role = m.isVoter(id) ? dev.zkr.client.EnsembleMember.Role.VOTER
                    : x.role() == dev.zkr.client.EnsembleMember.Role.OBSERVER ? dev.zkr.client.EnsembleMember.Role.OBSERVER
                    : dev.zkr.client.EnsembleMember.Role.LEARNER;
            out.add(x.withRole(role));
        }
        return new Txn.Membership(out);
    }

    /** Member {@code id} as last learned, or null. */
    public dev.zkr.client.EnsembleMember member(int id) {
        return known.get(id);
    }

    /** The peer addresses of {@code ids} whose address is known, by id. */
    public Map<Integer, InetSocketAddress> peerAddresses(Collection<Integer> ids) {
        Map<Integer, InetSocketAddress> out = new TreeMap<>();
        for (int id : ids) {
            dev.zkr.client.EnsembleMember x = known.get(id);
            if (x != null) {
                out.put(id, new InetSocketAddress(x.host(), x.peerPort()));
            }
        }
        return out;
    }
}
