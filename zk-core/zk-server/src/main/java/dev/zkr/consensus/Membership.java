package dev.zkr.consensus;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Who is in an ensemble (docs/membership.md): the voters, whose majority commits and elects, and the learners, which
 * receive the log but count toward no quorum. Immutable; ids sorted; a learner is never also a voter. A membership is
 * replicated state: it changes only by a membership record in the log, one voter change at a time.
 */
public record Membership(List<Integer> voters, List<Integer> learners) {
    public Membership {
        voters = sortedDistinct(voters, "voter");
        learners = sortedDistinct(learners, "learner");
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("a membership needs at least one voter");
        }
        for (int l : learners) {
            if (voters.contains(l)) {
                throw new IllegalArgumentException("server " + l + " is both a voter and a learner");
            }
        }
    }

    /** Voters only (the static {@code server.N} members of a fresh ensemble). */
    public static Membership ofVoters(Collection<Integer> voters) {
        return new Membership(List.copyOf(voters), List.of());
    }

    public boolean isVoter(int id) {
        return voters.contains(id);
    }

    public boolean isLearner(int id) {
        return learners.contains(id);
    }

    public boolean isMember(int id) {
        return isVoter(id) || isLearner(id);
    }

    /** Voters and learners, ascending. */
    public List<Integer> members() {
        TreeSet<Integer> all = new TreeSet<>(voters);
        all.addAll(learners);
        return List.copyOf(all);
    }

    /** This membership plus learner {@code id}. */
    public Membership withLearner(int id) {
        if (isMember(id)) {
            throw new IllegalArgumentException("server " + id + " is already a member of " + this);
        }
        List<Integer> l = new ArrayList<>(learners);
        l.add(id);
        return new Membership(voters, l);
    }

    /** This membership with learner {@code id} made a voter. */
    public Membership promoted(int id) {
        if (!isLearner(id)) {
            throw new IllegalArgumentException("server " + id + " is not a learner of " + this);
        }
        List<Integer> v = new ArrayList<>(voters);
        v.add(id);
        List<Integer> l = new ArrayList<>(learners);
        l.remove(Integer.valueOf(id));
        return new Membership(v, l);
    }

    /** This membership without member {@code id} (voter or learner). */
    public Membership without(int id) {
        if (!isMember(id)) {
            throw new IllegalArgumentException("server " + id + " is not a member of " + this);
        }
        if (voters.size() == 1 && isVoter(id)) {
            throw new IllegalArgumentException("cannot remove the last voter " + id);
        }
        List<Integer> v = new ArrayList<>(voters);
        v.remove(Integer.valueOf(id));
        List<Integer> l = new ArrayList<>(learners);
        l.remove(Integer.valueOf(id));
        return new Membership(v, l);
    }

    private static List<Integer> sortedDistinct(List<Integer> ids, String what) {
        TreeSet<Integer> s = new TreeSet<>();
        for (Integer id : ids) {
            if (id == null || id < 0) {
                throw new IllegalArgumentException("bad " + what + " id " + id);
            }
            if (!s.add(id)) {
                throw new IllegalArgumentException("duplicate " + what + " id " + id);
            }
        }
        return List.copyOf(s);
    }

    @Override
    public String toString() {
        return "voters=" + voters + (learners.isEmpty() ? "" : " learners=" + learners);
    }
}
