package dev.zkr.chaos.nemesis;

import dev.zkr.chaos.Cluster;
import dev.zkr.client.EnsembleMember;
import dev.zkr.client.MembershipChange;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/** zkr's membership changes through its own client's admin call ({@code reconfig}, as {@code zkr reconfig}). */
final class ZkrMemberAdmin implements MemberAdmin {

    private final Cluster cluster;

    ZkrMemberAdmin(Cluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public void promote(int i) throws Exception {
        int id = cluster.ensemble().id(i);
        change(MembershipChange.promote(id),
                members -> members.stream().anyMatch(m -> m.id() == id && m.role() == EnsembleMember.Role.VOTER));
    }

    @Override
    public void remove(int i) throws Exception {
        int id = cluster.ensemble().id(i);
        change(MembershipChange.remove(id), members -> members.stream().noneMatch(m -> m.id() == id));
    }

    private void change(MembershipChange change, Predicate<List<EnsembleMember>> made) throws Exception {
        try (ZkClient c = ZkClient.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(8))
                .connectTimeout(Duration.ofSeconds(10)).build()) {
            c.addAuthInfo("digest", ("super:" + Cluster.SUPER_PASSWORD).getBytes(StandardCharsets.UTF_8));
            MemberAdmin.untilMade(change.toString(), () -> made.test(c.members()), () -> c.reconfig(change),
                    ZkException.class);
        }
    }
}
