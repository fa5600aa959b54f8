package dev.zkr.chaos.net;

import dev.zkr.bench.Ensemble;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The links between the servers of one ensemble, each directed link {@code i → j} through its own {@link LinkProxy}
 * (one for the peer port and, for ZooKeeper, one for the election port): server {@code i} is configured with the
 * proxies' ports for every other member, so cutting a proxy cuts exactly what {@code i} sends to and hears from
 * {@code j} on connections {@code i} dialled. A partition cuts both directions of every link it separates. Indices
 * are 0-based member indices.
 */
public final class PeerNetwork implements AutoCloseable {

    private final int size;
    private final List<LinkProxy> proxies = new ArrayList<>();
    private final LinkProxy[][] peer;
    private final LinkProxy[][] election;

    private PeerNetwork(int size) {
        this.size = size;
        this.peer = new LinkProxy[size][size];
        this.election = new LinkProxy[size][size];
    }

    /** Proxies for every directed pair of {@code members}; election-port proxies only if {@code withElection}. */
    public static PeerNetwork build(List<Ensemble.Member> members, boolean withElection) {
        PeerNetwork n = new PeerNetwork(members.size());
        for (int i = 0; i < members.size(); i++) {
            for (int j = 0; j < members.size(); j++) {
                if (i == j) {
                    continue;
                }
                n.peer[i][j] = n.add(LinkProxy.start(i, j, members.get(j).peerPort()));
                if (withElection) {
                    n.election[i][j] = n.add(LinkProxy.start(i, j, members.get(j).electionPort()));
                }
            }
        }
        return n;
    }

    private LinkProxy add(LinkProxy p) {
        proxies.add(p);
        return p;
    }

    /** The member list as member {@code i} is told it: its own entry real, the others' peer ports its proxies'. */
    public List<Ensemble.Member> viewOf(int i, List<Ensemble.Member> members) {
        List<Ensemble.Member> view = new ArrayList<>();
        for (int j = 0; j < members.size(); j++) {
            Ensemble.Member m = members.get(j);
            if (j == i) {
                view.add(m);
            } else {
                int electionPort = election[i][j] == null ? m.electionPort() : election[i][j].port();
                view.add(new Ensemble.Member(m.id(), m.clientPort(), peer[i][j].port(), electionPort));
            }
        }
        return view;
    }

    /** Every member's view, in member order. */
    public List<List<Ensemble.Member>> views(List<Ensemble.Member> members) {
        List<List<Ensemble.Member>> views = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            views.add(viewOf(i, members));
        }
        return views;
    }

    /** Heals everything, then cuts both directions between every pair that {@code connected} says cannot talk. */
    public void apply(BiPredicate<Integer, Integer> connected) {
        for (int i = 0; i < size; i++) {
            for (int j = 0; j < size; j++) {
                if (i == j) {
                    continue;
                }
                boolean up = connected.test(i, j) && connected.test(j, i);
                for (LinkProxy p : new LinkProxy[] {peer[i][j], election[i][j]}) {
                    if (p == null) {
                        continue;
                    }
                    if (up) {
                        p.heal();
                    } else {
                        p.cut();
                    }
                }
            }
        }
    }

    /** Splits the servers into {@code sides}: links within a side stay up, links across are cut. */
    public void partition(List<Set<Integer>> sides) {
        apply((a, b) -> sides.stream().anyMatch(s -> s.contains(a) && s.contains(b)));
    }

    /** Every link up. */
    public void heal() {
        apply((a, b) -> true);
    }

    public int size() {
        return size;
    }

    @Override
    public void close() {
        for (LinkProxy p : proxies) {
            p.close();
        }
    }
}
