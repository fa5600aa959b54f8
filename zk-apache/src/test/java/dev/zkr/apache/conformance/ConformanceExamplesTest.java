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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The most important differential cases as fixed sequences, so that a failure is easy to read. Each runs on zkr and
 * on ZooKeeper side by side with the checks of {@link ConformanceProperties} (outcomes, Stats, zxid order, events,
 * final tree); each also asserts the outcome it is about, so that "both did nothing" cannot pass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConformanceExamplesTest {

    private Backends backends;

    /** The servers and clients compared; a subclass runs the same cases with Apache's client on zkr. */
    Backends startBackends() {
        return Backends.start();
    }

    @BeforeAll
    void start() {
        backends = startBackends();
    }

    @AfterAll
    void stop() {
        if (backends != null) {
            backends.close();
        }
    }

    /** Runs the steps on both backends; returns the history, line k = step k. */
    private History run(Step... steps) {
        return new History(Differential.run(backends, List.of(steps)));
    }

    private record History(List<String> lines) {
        /** Asserts that step k's line (outcome and what followed) contains the text. */
        History expect(int step, String text) {
            String line = lines.get(step + 1); // line 0 is the creation of the try's root
            assertTrue(line.contains(text), "step " + step + " should contain <" + text + ">, was: " + line);
            return this;
        }

        /** Asserts that step k's line (outcome and what followed) does not contain the text. */
        History expectNo(int step, String text) {
            String line = lines.get(step + 1);
            assertTrue(!line.contains(text), "step " + step + " should not contain <" + text + ">, was: " + line);
            return this;
        }
    }

    private static Step create(String path, CreateMode mode) {
        return new Step.Create(path, new Data(1), mode, false);
    }

    private static Step createByOther(String path, CreateMode mode) {
        return new Step.Create(path, new Data(1), mode, true);
    }

    private static PathRef p(String rel) {
        return PathRef.of(rel);
    }

    @Test
    void deleteRaisesTheParentsCversion() {
        run(create("a", CreateMode.PERSISTENT),
                create("a/b", CreateMode.PERSISTENT),
                new Step.Delete(p("a/b"), Version.ANY),
                new Step.Exists(p("a"), -1),
                create("a/c", CreateMode.PERSISTENT),
                new Step.Multi(List.of(new MultiOp.MDelete(p("a/c"), Version.CURRENT))),
                new Step.GetChildren(p("a"), -1))
                .expect(3, "cv2 av0 nc0")
                .expect(6, "cv4 av0 nc0");
    }

    @Test
    void sequentialNamesCountCreationsOnly() {
        run(create("a", CreateMode.PERSISTENT),
                create("a/b", CreateMode.PERSISTENT),
                new Step.Delete(p("a/b"), Version.ANY),
                create("a/s-", CreateMode.PERSISTENT_SEQUENTIAL),
                create("a/", CreateMode.EPHEMERAL_SEQUENTIAL),
                create("a/s-", CreateMode.PERSISTENT_SEQUENTIAL),
                new Step.GetChildren(p("a"), -1))
                .expect(3, "created a/s-0000000001")
                .expect(4, "created a/0000000002 {v0 cv0 av0 nc0 len2 eph(main)}")
                .expect(5, "created a/s-0000000003");
    }

    @Test
    void versionedWrites() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.SetData(p("a"), new Data(2), Version.WRONG),
                new Step.SetData(p("a"), new Data(2), Version.CURRENT),
                new Step.SetData(p("a"), new Data(3), Version.ANY),
                new Step.Delete(p("a"), Version.WRONG),
                create("a/b", CreateMode.PERSISTENT),
                new Step.Delete(p("a"), Version.CURRENT),
                new Step.Delete(p("a/b"), Version.CURRENT),
                new Step.Delete(p("a"), Version.CURRENT),
                new Step.Delete(p("a"), Version.ANY))
                .expect(1, "error BAD_VERSION")
                .expect(2, "set {v1")
                .expect(3, "set {v2")
                .expect(4, "error BAD_VERSION")
                .expect(6, "error NOT_EMPTY")
                .expect(8, "deleted")
                .expect(9, "error NO_NODE");
    }

    @Test
    void ephemeralsCannotHaveChildren() {
        run(create("a", CreateMode.EPHEMERAL),
                create("a/b", CreateMode.PERSISTENT),
                create("a/", CreateMode.PERSISTENT_SEQUENTIAL),
                new Step.Multi(List.of(new MultiOp.MCreate("d", new Data(1), CreateMode.PERSISTENT),
                        new MultiOp.MCreate("a/c", new Data(1), CreateMode.EPHEMERAL))))
                .expect(1, "error NO_CHILDREN_FOR_EPHEMERALS")
                .expect(2, "error NO_CHILDREN_FOR_EPHEMERALS")
                .expect(3, "error NO_CHILDREN_FOR_EPHEMERALS [OK, NO_CHILDREN_FOR_EPHEMERALS]");
    }

    @Test
    void multiIsAllOrNothingWithPerOpResults() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.Exists(p("d"), 0),
                new Step.Multi(List.of(
                        new MultiOp.MCreate("d", new Data(1), CreateMode.PERSISTENT),
                        new MultiOp.MCheck(p("a"), Version.WRONG),
                        new MultiOp.MSetData(p("a"), new Data(2), Version.ANY),
                        new MultiOp.MDelete(p("a"), Version.ANY))),
                new Step.Exists(p("d"), -1),
                new Step.Multi(List.of(
                        new MultiOp.MCreate("d", new Data(1), CreateMode.PERSISTENT),
                        new MultiOp.MCreate("d/q-", new Data(1), CreateMode.PERSISTENT_SEQUENTIAL),
                        new MultiOp.MSetData(p("a"), new Data(2), Version.CURRENT),
                        new MultiOp.MCheck(p("a"), Version.ANY))))
                .expect(2, "error BAD_VERSION [OK, BAD_VERSION, RUNTIME_INCONSISTENCY, RUNTIME_INCONSISTENCY]")
                .expect(3, "-> null")
                .expect(4, "ok [created d {v0 cv0 av0 nc0 len2 persistent}, created d/q-0000000000")
                .expect(4, "events [w0=[NODE_CREATED d zxid:z]]");
    }

    @Test
    void oneShotWatchesFireOnceWithZooKeepersEvents() {
        run(new Step.Exists(p("a"), 0),
                create("a", CreateMode.PERSISTENT),
                new Step.GetData(p("a"), 0),
                new Step.Exists(p("a"), 0),
                new Step.GetChildren(p("a"), 1),
                new Step.SetData(p("a"), new Data(2), Version.ANY),
                new Step.SetData(p("a"), new Data(3), Version.ANY),
                new Step.GetData(p("a"), 0),
                new Step.GetChildren(p("a"), 0),
                create("a/b", CreateMode.PERSISTENT),
                new Step.Delete(p("a/b"), Version.ANY),
                new Step.Delete(p("a"), Version.ANY))
                .expect(1, "events [w0=[NODE_CREATED a zxid:z]]")
                .expect(5, "events [w0=[NODE_DATA_CHANGED a zxid:z]]")
                .expect(9, "events [w0=[NODE_CHILDREN_CHANGED a zxid:z], w1=[NODE_CHILDREN_CHANGED a zxid:z]]")
                .expect(11, "events [w0=[NODE_DELETED a zxid:z]]");
    }

    @Test
    void persistentAndRecursiveWatches() {
        run(new Step.AddWatch(p(""), AddWatchMode.PERSISTENT_RECURSIVE, 0),
                new Step.AddWatch(p("a"), AddWatchMode.PERSISTENT, 1),
                create("a", CreateMode.PERSISTENT),
                create("a/b", CreateMode.PERSISTENT),
                new Step.SetData(p("a/b"), new Data(2), Version.ANY),
                new Step.SetData(p("a"), new Data(2), Version.ANY),
                new Step.Multi(List.of(new MultiOp.MDelete(p("a/b"), Version.ANY),
                        new MultiOp.MDelete(p("a"), Version.ANY))),
                new Step.RemoveWatches(p("a"), WatcherType.PERSISTENT, 1),
                new Step.RemoveWatches(p("a"), WatcherType.PERSISTENT, 1),
                create("a", CreateMode.PERSISTENT))
                .expect(2, "events [w0=[NODE_CREATED a zxid:z], w1=[NODE_CREATED a zxid:z]]")
                .expect(3, "events [w0=[NODE_CREATED a/b zxid:z], w1=[NODE_CHILDREN_CHANGED a zxid:z]]")
                .expect(7, "events [w1=[PERSISTENT_WATCH_REMOVED a zxid:-1]]")
                .expect(8, "error NO_WATCHER")
                .expect(9, "events [w0=[NODE_CREATED a zxid:z]]");
    }

    @Test
    void oneWatcherOnOnePathGetsEachEventOnce() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.Exists(p("a"), 0),
                new Step.GetData(p("a"), 0),
                new Step.GetChildren(p("a"), 0),
                new Step.AddWatch(p("a"), AddWatchMode.PERSISTENT, 0),
                new Step.SetData(p("a"), new Data(2), Version.ANY),
                new Step.GetData(p("a"), 0),
                new Step.Delete(p("a"), Version.ANY))
                .expect(5, "events [w0=[NODE_DATA_CHANGED a zxid:z]]")
                .expect(7, "events [w0=[NODE_DELETED a zxid:z]]");
    }

    @Test
    void removingOneShotWatches() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.GetData(p("a"), 0),
                new Step.GetChildren(p("a"), 0),
                new Step.RemoveWatches(p("a"), WatcherType.DATA, 0),
                new Step.RemoveWatches(p("a"), WatcherType.DATA, 0),
                new Step.RemoveWatches(p("a"), WatcherType.ANY, 0),
                new Step.RemoveWatches(p("a"), WatcherType.CHILDREN, 0))
                .expect(3, "events [w0=[DATA_WATCH_REMOVED a zxid:-1]]")
                .expect(4, "error NO_WATCHER")
                .expect(5, "events [w0=[CHILD_WATCH_REMOVED a zxid:-1]]")
                .expect(6, "error NO_WATCHER");
    }

    /**
     * Removing ANY kind of a watcher that holds a data and a child watch delivers both removal events; their order is
     * unspecified (ZooKeeper's client changes it from one JVM to the next), so the step compares them sorted.
     */
    @Test
    void removingEveryKindAtOnceDeliversOneEventPerKind() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.GetData(p("a"), 0),
                new Step.GetChildren(p("a"), 0),
                new Step.Exists(p("a"), 1),
                new Step.RemoveWatches(p("a"), WatcherType.ANY, 0),
                new Step.ReadWhileRemoving(p("a"), 2, 0, WatcherType.ANY, 1),
                new Step.Delete(p("a"), Version.ANY))
                .expect(4, "events [w0=[CHILD_WATCH_REMOVED a zxid:-1, DATA_WATCH_REMOVED a zxid:-1]]")
                .expect(5, "events [w1=[DATA_WATCH_REMOVED a zxid:-1]]")
                .expect(6, "events [w0=[NODE_DELETED a zxid:z]]");
    }

    /**
     * Removing the last registered watcher of a path while another watcher's watching read of it is in flight: the
     * read is served first, so its watch stays on the server and fires (zkr used to drop it on the server, leaving
     * the read's watcher registered on the client only, never fired).
     */
    @Test
    void aWatchingReadInFlightKeepsItsWatchWhenAnotherWatcherIsRemoved() {
        run(new Step.Exists(p("a"), 0),
                new Step.ReadWhileRemoving(p("a"), 0, 1, WatcherType.DATA, 0),
                create("a", CreateMode.PERSISTENT),
                new Step.GetChildren(p("a"), 0),
                new Step.ReadWhileRemoving(p("a"), 2, 1, WatcherType.CHILDREN, 0),
                create("a/b", CreateMode.PERSISTENT))
                .expect(1, "null; removed; events [w0=[DATA_WATCH_REMOVED a zxid:-1]]")
                .expect(2, "events [w1=[NODE_CREATED a zxid:z]]")
                .expect(4, "events [w0=[CHILD_WATCH_REMOVED a zxid:-1]]")
                .expect(5, "events [w1=[NODE_CHILDREN_CHANGED a zxid:z]]");
    }

    @Test
    void containersGoWithTheirLastChild() {
        run(create("a", CreateMode.CONTAINER),
                create("d", CreateMode.CONTAINER),
                create("a/b", CreateMode.CONTAINER),
                create("a/b/e", CreateMode.PERSISTENT),
                new Step.Exists(p("a"), 0),
                new Step.GetChildren(p(""), 1),
                new Step.Delete(p("a/b/e"), Version.ANY),
                new Step.Exists(p("d"), -1))
                .expect(6, "containers removed [a, a/b]")
                .expect(6, "events [w0=[NODE_DELETED a zxid:z], w1=[NODE_CHILDREN_CHANGED . zxid:z]]")
                .expect(7, "{v0 cv0 av0 nc0 len2 persistent}");
    }

    @Test
    void ttlNodesAreCreatedAloneAndInMultisAndShowNoOwner() {
        run(create("a", CreateMode.PERSISTENT_WITH_TTL),
                create("a/b", CreateMode.PERSISTENT),
                create("a/", CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL),
                new Step.Multi(List.of(new MultiOp.MCreate("d", new Data(2), CreateMode.PERSISTENT_WITH_TTL))),
                new Step.GetData(p("d"), -1))
                .expect(0, "created a ")
                .expect(2, "created a/0000000001")
                .expect(3, "created d")
                .expect(4, "persistent}");
    }

    @Test
    void ttlNodesExpireOnBothServers() {
        run(new Step.ExpireTtl("a", CreateMode.PERSISTENT_WITH_TTL),
                new Step.ExpireTtl("d", CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL),
                new Step.GetChildren(p(""), -1))
                .expect(0, "expired")
                .expect(1, "created d0000000001")
                .expect(1, "expired")
                .expect(2, "[] ");
    }

    @Test
    void closingASessionRemovesItsEphemeralsAndFiresTheirWatches() {
        run(create("a", CreateMode.PERSISTENT),
                createByOther("a/b", CreateMode.EPHEMERAL),
                createByOther("a/", CreateMode.EPHEMERAL_SEQUENTIAL),
                createByOther("d", CreateMode.EPHEMERAL),
                new Step.Exists(p("a/b"), 0),
                new Step.GetData(p("d"), 1),
                new Step.GetChildren(p("a"), 2),
                new Step.AddWatch(p(""), AddWatchMode.PERSISTENT_RECURSIVE, 1),
                new Step.CloseOther(),
                new Step.GetChildren(p("a"), -1),
                new Step.CloseOther())
                .expect(1, "eph(other)")
                .expect(8, "closed; events [w0=[NODE_DELETED a/b zxid:z], w1=[NODE_DELETED a/0000000001 zxid:z, "
                        + "NODE_DELETED a/b zxid:z, NODE_DELETED d zxid:z], w2=[NODE_CHILDREN_CHANGED a zxid:z]]")
                .expect(9, "[] {v0 cv4 av0 nc0")
                .expect(10, "no second session");
    }

    @Test
    void expiringASessionRemovesItsEphemeralsAndFiresTheirWatches() {
        run(create("a", CreateMode.PERSISTENT),
                createByOther("a/b", CreateMode.EPHEMERAL),
                createByOther("a/s-", CreateMode.EPHEMERAL_SEQUENTIAL),
                new Step.GetData(p("a/b"), 0),
                new Step.GetChildren(p("a"), 1),
                new Step.AddWatch(p("a"), AddWatchMode.PERSISTENT_RECURSIVE, 2),
                new Step.ExpireOther(),
                new Step.GetChildren(p("a"), -1),
                new Step.ExpireOther())
                .expect(6, "expired; events [w0=[NODE_DELETED a/b zxid:z], w1=[NODE_CHILDREN_CHANGED a zxid:z], "
                        + "w2=[NODE_DELETED a/b zxid:z, NODE_DELETED a/s-0000000001 zxid:z]]")
                .expect(7, "[] {v0 cv4 av0 nc0")
                .expect(8, "no second session");
    }

    @Test
    void sessionsEphemeralsAndWatchesSurviveAServerRestart() {
        run(create("a", CreateMode.PERSISTENT),
                createByOther("a/b", CreateMode.EPHEMERAL),
                create("d", CreateMode.CONTAINER),
                create("d/x", CreateMode.EPHEMERAL),
                new Step.GetData(p("a/b"), 0),
                new Step.GetChildren(p("a"), 1),
                new Step.Exists(p("a/c"), 1),
                new Step.AddWatch(p("d"), AddWatchMode.PERSISTENT_RECURSIVE, 2),
                new Step.RestartServer(),
                new Step.Exists(p("a/b"), -1),
                create("a/c", CreateMode.PERSISTENT),
                new Step.CloseOther(),
                new Step.Delete(p("d/x"), Version.ANY))
                .expect(8, "restarted, sessions kept")
                .expect(9, "{v0 cv0 av0 nc0 len2 eph(other)}")
                .expect(10, "events [w1=[NODE_CREATED a/c zxid:z, NODE_CHILDREN_CHANGED a zxid:z]]")
                .expect(11, "events [w0=[NODE_DELETED a/b zxid:z]]")
                .expect(12, "containers removed [d]; events [w2=[NODE_DELETED d/x zxid:z, NODE_DELETED d zxid:z]]");
    }

    @Test
    void invalidPathsAreRejected() {
        History h = run(create("a", CreateMode.PERSISTENT),
                new Step.Invalid("/a/", "create"),
                new Step.Invalid("/a/", "createSequential"),
                new Step.Invalid("//a", "delete"),
                new Step.Invalid("/./a", "getData"),
                new Step.Invalid("/a/..", "setData"),
                new Step.Invalid("/a\u0000b", "exists"),
                new Step.Invalid("relative", "getChildren"),
                new Step.Invalid("", "multi"),
                new Step.Invalid("/a\ud800", "create"));
        h.expect(1, "error INVALID_PATH").expect(2, "created a/0000000000");
        for (int i = 3; i <= 9; i++) {
            h.expect(i, "error INVALID_PATH");
        }
    }

    @Test
    void oversizedDataFailsAndTheSessionStays() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.Create("d", Data.BIG, CreateMode.PERSISTENT, false),
                new Step.SetData(p("a"), Data.BIG, Version.ANY),
                new Step.Multi(List.of(new MultiOp.MSetData(p("a"), Data.BIG, Version.ANY))),
                new Step.GetData(p("a"), -1))
                .expect(1, "error DATA_TOO_LARGE, then still connected")
                .expect(2, "error DATA_TOO_LARGE, then still connected")
                .expect(3, "error DATA_TOO_LARGE")
                .expect(4, "'d1' {v0");
    }

    @Test
    void syncOfAMissingNode() {
        run(new Step.Sync(p("a")), new Step.Sync(p("")))
                .expect(0, "synced")
                .expect(1, "synced");
    }

    @Test
    void aclChecksAndAversions() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.CreateWithAcl("a/b", new Data(1), CreateMode.PERSISTENT, AclChoice.CREATOR_ALL, false),
                new Step.CreateWithAcl("a/b", new Data(1), CreateMode.PERSISTENT, AclChoice.NO_READ, false),
                new Step.GetData(p("a/b"), 0),
                new Step.SetAcl(p("a/b"), AclChoice.ALICE_ALL, Version.WRONG, false),
                new Step.SetAcl(p("a/b"), AclChoice.ALICE_ALL, Version.CURRENT, false),
                new Step.SetData(p("a/b"), new Data(2), Version.ANY),
                new Step.Multi(List.of(new MultiOp.MCreateAcl("a/c", new Data(1), CreateMode.PERSISTENT,
                        AclChoice.ALICE_ALL), new MultiOp.MSetData(p("a/b"), new Data(2), Version.ANY))),
                new Step.AddAuth(false, Credential.ALICE),
                new Step.SetData(p("a/b"), new Data(2), Version.ANY),
                new Step.GetAcl(p("a/b"), false),
                new Step.SetAcl(p("a/b"), AclChoice.NO_DELETE, Version.CURRENT, false),
                new Step.Delete(p("a/b"), Version.ANY))
                .expect(1, "error INVALID_ACL")
                .expect(2, "created a/b {v0 cv0 av0")
                .expect(3, "error NO_AUTH")
                .expect(4, "error BAD_VERSION")
                .expect(5, "setAcl {v0 cv0 av1")
                .expect(6, "error NO_AUTH")
                .expect(7, "error NO_AUTH [OK, NO_AUTH]")
                .expect(9, "set {v1")
                .expect(10, "[digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E==31] {v1 cv0 av1")
                .expect(11, "setAcl {v1 cv0 av2")
                .expect(12, "deleted"); // DELETE is needed on the parent, not on the node
    }

    /**
     * {@code auth} expands to every digest id of the session. ZooKeeper lists them in its id set's hash order, zkr
     * in the order the session authenticated: {@link Side#acl} compares such runs sorted.
     */
    @Test
    void authExpandsToEveryIdOfTheSession() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.AddAuth(false, Credential.ALICE_WRONG),
                new Step.AddAuth(false, Credential.ALICE),
                new Step.CreateWithAcl("a/b", new Data(1), CreateMode.PERSISTENT, AclChoice.CREATOR_ALL, false),
                new Step.GetAcl(p("a/b"), false),
                new Step.AddAuth(true, Credential.BOB),
                new Step.CreateWithAcl("a/c", new Data(1), CreateMode.EPHEMERAL, AclChoice.CREATOR_ALL, true),
                new Step.GetAcl(p("a/c"), false),
                new Step.GetAcl(p("a/c"), true),
                new Step.GetData(p("a/c"), -1))
                .expect(4, "[digest:alice:9ussi3jBkbd4no1raUvxHSkUEN8==31, "
                        + "digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E==31]")
                .expect(6, "created a/c {v0 cv0 av0 nc0 len2 eph(other)}")
                .expect(7, "error NO_AUTH")
                .expect(8, "[digest:bob:ikIaKsbtGweaHnb/jKn7OHqbunM==31]")
                .expect(9, "error NO_AUTH");
    }

    /** The second session's ephemeral replaced by a persistent node: its expiry leaves the persistent one. */
    @Test
    void expiryLeavesANodeThatReplacedItsEphemeral() {
        run(create("a", CreateMode.PERSISTENT),
                createByOther("a/b", CreateMode.EPHEMERAL),
                new Step.Delete(p("a/b"), Version.ANY),
                create("a/b", CreateMode.PERSISTENT),
                new Step.ExpireOther(),
                new Step.Exists(p("a/b"), -1))
                .expect(4, "expired")
                .expect(5, "persistent}");
    }

    /**
     * Both clients send a session's authentications again after a restart (ZooKeeper's client itself, zkr's client
     * likewise), so the ids, and what they may read, survive it; a watch on a node its session may not read
     * delivers nothing, on a readable one its event.
     */
    @Test
    void authenticationsSurviveARestart() {
        run(create("a", CreateMode.PERSISTENT),
                new Step.CreateWithAcl("a/b", new Data(1), CreateMode.PERSISTENT, AclChoice.ALICE_ALL, false),
                new Step.AddAuth(false, Credential.ALICE),
                new Step.AddAuth(true, Credential.BOB),
                new Step.RestartServer(),
                new Step.GetData(p("a/b"), 0),
                new Step.GetAcl(p("a/b"), true),
                new Step.SetAcl(p("a/b"), AclChoice.ALICE_ALL_BOB_READ, Version.CURRENT, false),
                new Step.GetAcl(p("a/b"), true),
                new Step.SetData(p("a/b"), new Data(2), Version.ANY),
                new Step.GetData(p("a/b"), 0),
                new Step.SetAcl(p("a/b"), AclChoice.NO_READ, Version.CURRENT, false),
                new Step.SetData(p("a/b"), new Data(3), Version.ANY))
                .expect(4, "restarted, sessions kept")
                .expect(5, "'d1' {v0 cv0 av0")
                .expect(6, "error NO_AUTH")
                .expect(7, "setAcl {v0 cv0 av1")
                .expect(8, "[digest:alice:x=31, digest:bob:x=1] {v0 cv0 av1")
                .expect(9, "events [w0=[NODE_DATA_CHANGED a/b")
                .expect(11, "setAcl {v1 cv0 av2")
                .expect(12, "set {v2")
                .expectNo(12, "events"); // main may no longer read a/b: w0's event is not delivered
    }
}
