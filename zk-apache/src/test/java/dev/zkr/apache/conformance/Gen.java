package dev.zkr.apache.conformance;

import dev.zkr.apache.conformance.Args.AclChoice;
import dev.zkr.apache.conformance.Args.Credential;
import dev.zkr.apache.conformance.Args.Data;
import dev.zkr.apache.conformance.Args.PathRef;
import dev.zkr.apache.conformance.Args.Version;
import dev.zkr.apache.conformance.Step.MultiOp;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatcherType;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.List;

/** jqwik generators of differential sequences over a small path universe. */
final class Gen {

    private Gen() {
    }

    /** Sequences of 1..maxSize steps, every kind of step. */
    static Arbitrary<List<Step>> steps(int maxSize) {
        return step().list().ofMinSize(1).ofMaxSize(maxSize).withSizeDistribution(RandomDistribution.uniform());
    }

    /**
     * Every kind of step. TTL expiry ({@link Step.ExpireTtl}: a short TTL node, waited for until the server
     * deletes it) is among them only under {@code -Plong} ({@code zkr.long}), as each costs a container-check period
     * per server; the default build compares expiry in ConformanceExamplesTest, and TTL creates (of a long TTL) in
     * every run.
     */
    @SuppressWarnings("unchecked")
    static Arbitrary<Step> step() {
        Arbitrary<Step> expiry = Combinators.combine(createPath(), Arbitraries.of(CreateMode.PERSISTENT_WITH_TTL,
                CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL)).as(Step.ExpireTtl::new);
        return Arbitraries.frequencyOf(
                Tuple.of(Boolean.getBoolean("zkr.long") ? 1 : 0, expiry),
                Tuple.of(10, create()),
                Tuple.of(4, delete()),
                Tuple.of(4, setData()),
                Tuple.of(3, Combinators.combine(target(), watcher()).as(Step.GetData::new)),
                Tuple.of(3, Combinators.combine(target(), watcher()).as(Step.Exists::new)),
                Tuple.of(3, Combinators.combine(target(), watcher()).as(Step.GetChildren::new)),
                Tuple.of(2, Combinators.combine(target(), Arbitraries.of(AddWatchMode.class), someWatcher())
                        .as(Step.AddWatch::new)),
                Tuple.of(1, Combinators.combine(target(), Arbitraries.of(WatcherType.class), someWatcher())
                        .as(Step.RemoveWatches::new)),
                Tuple.of(3, multi()),
                Tuple.of(1, target().map(Step.Sync::new)),
                Tuple.of(1, Arbitraries.of(new Step.CloseOther(), new Step.ExpireOther())),
                Tuple.of(2, createWithAcl()),
                Tuple.of(1, setAcl()),
                Tuple.of(1, getAcl()),
                Tuple.of(1, addAuth()),
                Tuple.of(2, newReads()),
                Tuple.of(1, Combinators.combine(Arbitraries.of(Args.INVALID), Arbitraries.of("create",
                        "createSequential", "delete", "setData", "getData", "exists", "getChildren", "multi"))
                        .as(Step.Invalid::new)));
    }

    /**
     * Sequences weighted towards watches, ephemerals of a second session, session close and containers: every
     * read sets a watch, creates are often ephemeral (mostly by the second session) or containers. Every sequence
     * starts with a persistent {@code a} and a container {@code d}, so that deeper paths have parents.
     */
    static Arbitrary<List<Step>> watchSteps(int maxSize) {
        return watchStep().list().ofMinSize(1).ofMaxSize(maxSize).withSizeDistribution(RandomDistribution.uniform())
                .map(steps -> {
                    List<Step> all = new ArrayList<>(List.of(
                            new Step.Create("a", new Data(1), CreateMode.PERSISTENT, false),
                            new Step.Create("d", new Data(1), CreateMode.CONTAINER, false)));
                    all.addAll(steps);
                    return all;
                });
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Step> watchStep() {
        Arbitrary<CreateMode> modes = Arbitraries.of(CreateMode.PERSISTENT, CreateMode.CONTAINER,
                CreateMode.EPHEMERAL, CreateMode.EPHEMERAL, CreateMode.EPHEMERAL_SEQUENTIAL);
        return Arbitraries.frequencyOf(
                Tuple.of(8, Combinators.combine(createPath(), smallData(), modes, Arbitraries.of(false, true, true))
                        .as(Step.Create::new)),
                Tuple.of(3, delete()),
                Tuple.of(3, Combinators.combine(target(), smallData(), version()).as(Step.SetData::new)),
                Tuple.of(3, Combinators.combine(target(), someWatcher()).as(Step.GetData::new)),
                Tuple.of(3, Combinators.combine(target(), someWatcher()).as(Step.Exists::new)),
                Tuple.of(3, Combinators.combine(target(), someWatcher()).as(Step.GetChildren::new)),
                Tuple.of(2, Combinators.combine(target(), Arbitraries.of(AddWatchMode.class), someWatcher())
                        .as(Step.AddWatch::new)),
                Tuple.of(2, Combinators.combine(target(), Arbitraries.of(WatcherType.class), someWatcher())
                        .as(Step.RemoveWatches::new)),
                Tuple.of(2, multi()),
                Tuple.of(2, readWhileRemoving()),
                Tuple.of(2, newReads()),
                Tuple.of(2, Arbitraries.of(new Step.CloseOther(), new Step.ExpireOther())));
    }

    /** ZooKeeper 3.6+'s reads: getEphemerals, getAllChildrenNumber, whoAmI, multiRead. */
    @SuppressWarnings("unchecked")
    static Arbitrary<Step> newReads() {
        Arbitrary<Boolean> who = Arbitraries.of(false, true);
        return Arbitraries.frequencyOf(
                Tuple.of(2, Combinators.combine(target(), who).as(Step.GetEphemerals::new)),
                Tuple.of(2, Combinators.combine(target(), who).as(Step.AllChildrenNumber::new)),
                Tuple.of(1, who.map(Step.WhoAmI::new)),
                Tuple.of(3, Combinators.combine(target().list().ofMinSize(0).ofMaxSize(4),
                        Arbitraries.of(false, true).list().ofSize(4)).as((paths, kinds) ->
                        new Step.MultiRead(paths, kinds.subList(0, paths.size())))));
    }

    /**
     * Sequences weighted towards ACLs and authentication: creates with restrictive ACLs (by either session),
     * setAcl with aversions, getAcl, digest authentication of either session, and the ordinary reads, writes and
     * multis (some creating with an ACL) that then meet those ACLs, authenticated or not. Every sequence starts
     * with an open persistent {@code a} (so that deeper paths have a parent), then {@code a/b} and {@code d}, each
     * with an ACL drawn from the fixed set, so that the steps meet restrictive ACLs from the start.
     */
    static Arbitrary<List<Step>> aclSteps(int maxSize) {
        Arbitrary<List<Step>> steps = aclStep().list().ofMinSize(1).ofMaxSize(maxSize)
                .withSizeDistribution(RandomDistribution.uniform());
        return Combinators.combine(Arbitraries.of(AclChoice.class), Arbitraries.of(AclChoice.class), steps)
                .as((ab, d, rest) -> {
                    List<Step> all = new ArrayList<>();
                    all.add(new Step.Create("a", new Data(1), CreateMode.PERSISTENT, false));
                    all.add(new Step.CreateWithAcl("a/b", new Data(2), CreateMode.PERSISTENT, ab, false));
                    all.add(new Step.CreateWithAcl("d", new Data(3), CreateMode.PERSISTENT, d, false));
                    all.addAll(rest);
                    return all;
                });
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Step> aclStep() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, createWithAcl()),
                Tuple.of(3, Combinators.combine(createPath(), smallData(), Arbitraries.of(CreateMode.class),
                        Arbitraries.of(false, true)).as(Step.Create::new)),
                Tuple.of(4, setAcl()),
                Tuple.of(3, getAcl()),
                Tuple.of(3, newReads()),
                Tuple.of(3, addAuth()),
                Tuple.of(3, delete()),
                Tuple.of(3, Combinators.combine(target(), smallData(), version()).as(Step.SetData::new)),
                Tuple.of(3, Combinators.combine(target(), watcher()).as(Step.GetData::new)),
                Tuple.of(2, Combinators.combine(target(), watcher()).as(Step.Exists::new)),
                Tuple.of(2, Combinators.combine(target(), watcher()).as(Step.GetChildren::new)),
                Tuple.of(1, Combinators.combine(target(), Arbitraries.of(AddWatchMode.class), someWatcher())
                        .as(Step.AddWatch::new)),
                Tuple.of(3, multi(3)),
                Tuple.of(1, Arbitraries.of(new Step.CloseOther(), new Step.ExpireOther())));
    }

    /** A create with one of the fixed ACLs, in any mode, mostly by the main client. */
    static Arbitrary<Step> createWithAcl() {
        return Combinators.combine(createPath(), smallData(), Arbitraries.of(CreateMode.class),
                Arbitraries.of(AclChoice.class), Arbitraries.of(false, false, true)).as(Step.CreateWithAcl::new);
    }

    static Arbitrary<Step> setAcl() {
        return Combinators.combine(target(), Arbitraries.of(AclChoice.class), version(),
                Arbitraries.of(false, false, true)).as(Step.SetAcl::new);
    }

    static Arbitrary<Step> getAcl() {
        return Combinators.combine(target(), Arbitraries.of(false, false, true)).as(Step.GetAcl::new);
    }

    /**
     * Digest authentication (always accepted, see {@link Args.Credential}) of the main client or the other; the
     * super user rarely (it passes every check, so it makes the rest of a try less interesting).
     */
    @SuppressWarnings("unchecked")
    static Arbitrary<Step> addAuth() {
        Arbitrary<Credential> credential = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(Credential.ALICE)),
                Tuple.of(3, Arbitraries.just(Credential.BOB)),
                Tuple.of(3, Arbitraries.just(Credential.ALICE_WRONG)),
                Tuple.of(1, Arbitraries.just(Credential.SUPER)));
        return Combinators.combine(Arbitraries.of(false, false, true), credential).as(Step.AddAuth::new);
    }

    static Arbitrary<Step> create() {
        return Combinators.combine(createPath(), data(), Arbitraries.of(CreateMode.class),
                Arbitraries.of(false, false, true)).as(Step.Create::new);
    }

    static Arbitrary<Step> delete() {
        return Combinators.combine(target(), version()).as(Step.Delete::new);
    }

    static Arbitrary<Step> setData() {
        return Combinators.combine(target(), data(), version()).as(Step.SetData::new);
    }

    static Arbitrary<Step> multi() {
        return multi(1);
    }

    /** A multi of 1..4 operations; {@code aclCreates} weighs creates with an ACL (against 3 open creates). */
    @SuppressWarnings("unchecked")
    static Arbitrary<Step> multi(int aclCreates) {
        Arbitrary<MultiOp> op = Arbitraries.frequencyOf(
                Tuple.of(3, Combinators.combine(createPath(), smallData(), Arbitraries.of(CreateMode.class))
                        .as(MultiOp.MCreate::new)),
                Tuple.of(aclCreates, Combinators.combine(createPath(), smallData(), Arbitraries.of(CreateMode.class),
                        Arbitraries.of(AclChoice.class)).as(MultiOp.MCreateAcl::new)),
                Tuple.of(2, Combinators.combine(target(), version()).as(MultiOp.MDelete::new)),
                Tuple.of(2, Combinators.combine(target(), smallData(), version()).as(MultiOp.MSetData::new)),
                Tuple.of(2, Combinators.combine(target(), version()).as(MultiOp.MCheck::new)));
        return op.list().ofMinSize(1).ofMaxSize(4).map(ops -> new Step.Multi(new ArrayList<>(ops)));
    }

    /** A node to act on: mostly a fixed path, sometimes a sequential node created earlier. */
    @SuppressWarnings("unchecked")
    static Arbitrary<PathRef> target() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, path().map(PathRef::of)),
                Tuple.of(1, Arbitraries.integers().between(0, 3).map(PathRef::seq)));
    }

    /** A fixed path, shallow ones more often (a deep one needs its parents first). */
    @SuppressWarnings("unchecked")
    static Arbitrary<String> path() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just("")),
                Tuple.of(8, Arbitraries.of("a", "d")),
                Tuple.of(6, Arbitraries.of("a/b", "a/c")),
                Tuple.of(1, Arbitraries.just("a/b/e")));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<String> createPath() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, path()),
                Tuple.of(1, Arbitraries.of(Args.CREATE_ONLY)));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Data> data() {
        return Arbitraries.frequencyOf(
                Tuple.of(20, smallData()),
                Tuple.of(1, Arbitraries.just(Data.BIG)));
    }

    static Arbitrary<Data> smallData() {
        return Arbitraries.integers().between(0, 9).map(Data::new);
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Version> version() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(Version.ANY)),
                Tuple.of(2, Arbitraries.just(Version.CURRENT)),
                Tuple.of(1, Arbitraries.just(Version.WRONG)));
    }

    /** -1 (no watch) or a watcher index. */
    @SuppressWarnings("unchecked")
    static Arbitrary<Integer> watcher() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(-1)),
                Tuple.of(1, someWatcher()));
    }

    /** A watching read and, before its answer, the removal of another watcher's watches on the same path. */
    static Arbitrary<Step> readWhileRemoving() {
        return Combinators.combine(target(), Arbitraries.integers().between(0, 2), someWatcher(),
                Arbitraries.of(WatcherType.class), Arbitraries.integers().between(1, Side.WATCHERS - 1))
                .as((path, read, w, type, shift) -> new Step.ReadWhileRemoving(path, read, w, type,
                        (w + shift) % Side.WATCHERS));
    }

    static Arbitrary<Integer> someWatcher() {
        return Arbitraries.integers().between(0, Side.WATCHERS - 1);
    }
}
