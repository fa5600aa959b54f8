package dev.zkr.consensus;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** A majority of a static member list. */
public final class Quorum {
    private final int[] members;

    public Quorum(List<Integer> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("no members");
        }
        this.members = members.stream().mapToInt(Integer::intValue).sorted().distinct().toArray();
        if (this.members.length != members.size()) {
            throw new IllegalArgumentException("duplicate member ids: " + members);
        }
    }

    public int size() {
        return members.length;
    }

    /** How many members make a majority. */
    public int majority() {
        return members.length / 2 + 1;
    }

    public boolean isMember(int id) {
        return Arrays.binarySearch(members, id) >= 0;
    }

    public int[] members() {
        return members.clone();
    }

    /** Whether {@code ids} (members only are counted) form a majority. */
    public boolean reached(Collection<Integer> ids) {
        int n = 0;
        for (int id : ids) {
            if (isMember(id)) {
                n++;
            }
        }
        return n >= majority();
    }

    /** The highest value at least a majority of members has reached (absent members count as 0). */
    public long committed(Map<Integer, Long> matched) {
        long[] v = new long[members.length];
        for (int i = 0; i < members.length; i++) {
            v[i] = matched.getOrDefault(members[i], 0L);
        }
        Arrays.sort(v);
        return v[members.length - majority()];
    }
}
