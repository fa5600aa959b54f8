package dev.zkr.cli.inspect;

import java.util.Comparator;
import java.util.List;

/**
 * Reads a {@code GroupMembership} group from its node, as zk-recipes writes it: each member is an ephemeral child
 * named by its member id, holding the data it joined with. A crashed member stays listed until its session
 * expires. Pure.
 */
public final class GroupLayout {

    private GroupLayout() {
    }

    /** A member: its id, session, when it joined and its data. */
    public record GroupMember(String id, long session, long since, byte[] data) {
    }

    /** The members, sorted by id (as the recipe's view). */
    public static List<GroupMember> read(List<Znode> children) {
        return children.stream()
                .map(z -> new GroupMember(z.name(), z.session(), z.stat().ctime(), z.data()))
                .sorted(Comparator.comparing(GroupMember::id))
                .toList();
    }
}
