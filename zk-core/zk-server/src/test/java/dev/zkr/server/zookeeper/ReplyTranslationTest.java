package dev.zkr.server.zookeeper;

import dev.zkr.client.Acl;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import io.netty.buffer.Unpooled;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.MultiResponse;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetACLResponse;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildren2Response;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetChildrenResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetACLResponse;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;
import org.apache.zookeeper.proto.SyncRequest;
import org.apache.zookeeper.proto.SyncResponse;
import org.apache.zookeeper.proto.WatcherEvent;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * zkr's replies and events as the Apache client reads them: the header, then the very response record its
 * {@code ZooKeeper} class passes for the opcode (exists reads a SetDataResponse, addWatch an ErrorResponse), with
 * nothing left over in the frame.
 */
class ReplyTranslationTest {

    /** Every field different, so a swapped field shows. */
    static final Stat STAT = new Stat(0x101, 0x102, 0x103, 1_700_000_000_004L, 1_700_000_000_005L, 6, 7, 8,
            0x0909L, 10, 11);
    private static final byte[] DATA = "v".getBytes(StandardCharsets.UTF_8);

    private final Conversation c = new Conversation();

    static void assertStat(Stat s, org.apache.zookeeper.data.Stat z) {
        assertEquals(s.czxid(), z.getCzxid());
        assertEquals(s.mzxid(), z.getMzxid());
        assertEquals(s.pzxid(), z.getPzxid());
        assertEquals(s.ctime(), z.getCtime());
        assertEquals(s.mtime(), z.getMtime());
        assertEquals(s.version(), z.getVersion());
        assertEquals(s.cversion(), z.getCversion());
        assertEquals(s.aversion(), z.getAversion());
        assertEquals(s.ephemeralOwner(), z.getEphemeralOwner());
        assertEquals(s.dataLength(), z.getDataLength());
        assertEquals(s.numChildren(), z.getNumChildren());
    }

    private Conversation.Read ok(int xid, Message.Body body, org.apache.jute.Record response) {
        Conversation.Read r = c.answer(new Message.Reply(xid, 0x2000 + xid, 0, body, null), response);
        assertEquals(xid, r.header().getXid());
        assertEquals(0x2000 + xid, r.header().getZxid());
        assertEquals(0, r.header().getErr());
        assertFalse(r.close());
        return r;
    }

    @Test
    void statFieldByField() {
        org.apache.zookeeper.data.Stat z = Records.stat(STAT);
        assertStat(STAT, z);
        assertNull(Records.stat(null));
    }

    @Test
    void createAnswersThePathCreate2AndContainersPathAndStat() {
        c.send(1, OpCode.CREATE, new CreateRequest("/a-", DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, 2));
        CreateResponse cr = new CreateResponse();
        ok(1, new Message.CreateBody("/a-0000000007", STAT), cr);
        assertEquals("/a-0000000007", cr.getPath());

        for (int op : new int[] {OpCode.CREATE2, OpCode.CREATE_CONTAINER}) {
            c.send(2, op, new CreateRequest("/b", DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, 4));
            Create2Response c2 = new Create2Response();
            ok(2, new Message.CreateBody("/b", STAT), c2);
            assertEquals("/b", c2.getPath());
            assertStat(STAT, c2.getStat());
        }
    }

    @Test
    void existsAnswersTheStatOrNoNode() {
        c.send(1, OpCode.EXISTS, new ExistsRequest("/e", true));
        SetDataResponse r = new SetDataResponse(); // what ZooKeeper.exists reads
        ok(1, new Message.StatBody(STAT), r);
        assertStat(STAT, r.getStat());

        c.send(2, OpCode.EXISTS, new ExistsRequest("/missing", true));
        Conversation.Read missing = c.answer(new Message.Reply(2, 0x50, 0, new Message.StatBody(null), null),
                new SetDataResponse());
        assertEquals(KeeperException.Code.NONODE.intValue(), missing.header().getErr());
        assertEquals(0x50, missing.header().getZxid());
    }

    @Test
    void getDataSetDataAclsAndChildren() {
        c.send(1, OpCode.GET_DATA, new GetDataRequest("/g", false));
        GetDataResponse gd = new GetDataResponse();
        ok(1, new Message.DataBody(DATA, STAT), gd);
        assertArrayEquals(DATA, gd.getData());
        assertStat(STAT, gd.getStat());

        c.send(2, OpCode.SET_DATA, new SetDataRequest("/g", DATA, -1));
        SetDataResponse sd = new SetDataResponse();
        ok(2, new Message.StatBody(STAT), sd);
        assertStat(STAT, sd.getStat());

        c.send(3, OpCode.GET_ACL, new GetACLRequest("/g"));
        GetACLResponse ga = new GetACLResponse();
        ok(3, new Message.AclBody(new Acl[] {Acl.of(31, "world", "anyone"), Acl.of(1, "digest", "bob:x")}, STAT), ga);
        assertEquals(List.of(new org.apache.zookeeper.data.ACL(31, new org.apache.zookeeper.data.Id("world",
                "anyone")), new org.apache.zookeeper.data.ACL(1, new org.apache.zookeeper.data.Id("digest", "bob:x"))),
                ga.getAcl());
        assertStat(STAT, ga.getStat());

        c.send(4, OpCode.SET_ACL, new SetACLRequest("/g", ZooDefs.Ids.OPEN_ACL_UNSAFE, -1));
        SetACLResponse sa = new SetACLResponse();
        ok(4, new Message.StatBody(STAT), sa);
        assertStat(STAT, sa.getStat());

        c.send(5, OpCode.GET_CHILDREN, new GetChildrenRequest("/g", true));
        GetChildrenResponse gc = new GetChildrenResponse();
        ok(5, new Message.ChildrenBody(new String[] {"x", "y"}, STAT), gc);
        assertEquals(List.of("x", "y"), gc.getChildren());

        c.send(6, OpCode.GET_CHILDREN2, new GetChildren2Request("/g", true));
        GetChildren2Response gc2 = new GetChildren2Response();
        ok(6, new Message.ChildrenBody(new String[0], STAT), gc2);
        assertEquals(List.of(), gc2.getChildren());
        assertStat(STAT, gc2.getStat());
    }

    @Test
    void nullDataIsAnAbsentBufferAsZooKeeperWritesIt() {
        c.send(1, OpCode.GET_DATA, new GetDataRequest("/n", false));
        GetDataResponse r = new GetDataResponse(new byte[] {9}, null);
        ok(1, new Message.DataBody(null, STAT), r);
        assertNull(r.getData(), "the Apache client's getData returns null, as from ZooKeeper");
        c.send(2, OpCode.MULTI_READ, new MultiOperationRecord(List.of(org.apache.zookeeper.Op.getData("/n"))));
        MultiResponse m = new MultiResponse();
        ok(2, new Message.MultiBody(new OpResult[] {new OpResult.GetDataResult(null, STAT)}), m);
        assertNull(((org.apache.zookeeper.OpResult.GetDataResult) m.getResultList().get(0)).getData());
    }

    @Test
    void voidRepliesAreTheHeaderAlone() {
        c.send(1, OpCode.DELETE, new DeleteRequest("/d", -1));
        ok(1, null, null);
        c.send(2, OpCode.REMOVE_WATCHES, new RemoveWatchesRequest("/d", 3));
        ok(2, null, null);
        c.send(3, OpCode.ADD_WATCH, new org.apache.zookeeper.proto.AddWatchRequest("/d", 1));
        ErrorResponse er = new ErrorResponse(-99);
        ok(3, null, er);
        assertEquals(0, er.getErr(), "ZooKeeper answers addWatch with an ErrorResponse(0), which its client reads");
    }

    @Test
    void syncEchoesItsPath() {
        c.send(1, OpCode.SYNC, new SyncRequest("/app/x"));
        SyncResponse s = new SyncResponse();
        ok(1, null, s);
        assertEquals("/app/x", s.getPath());
    }

    @Test
    void pingsAnswerAtMinusTwoAuthAtMinusFourWithZxidZeroSetWatchesAtMinusEight() {
        c.send(OpCode.PING_XID, OpCode.PING, null);
        Conversation.Read ping = c.answer(new Message.Reply(-2, 0x77, 0, null, null), null);
        assertEquals(-2, ping.header().getXid());
        assertEquals(0x77, ping.header().getZxid());

        c.send(OpCode.AUTH_XID, OpCode.AUTH, new AuthPacket(0, "digest", DATA));
        Conversation.Read auth = c.answer(new Message.Reply(-4, 0x77, 0, null, null), null);
        assertEquals(-4, auth.header().getXid());
        assertEquals(0, auth.header().getZxid());
        assertFalse(auth.close());

        c.send(OpCode.SET_WATCHES_XID, OpCode.SET_WATCHES, new org.apache.zookeeper.proto.SetWatches(1, List.of(),
                List.of(), List.of()));
        Conversation.Read sw = c.answer(new Message.Reply(-8, 0x77, 0, null, null), null);
        assertEquals(-8, sw.header().getXid());
        assertEquals(0, sw.header().getErr());
    }

    @Test
    void aFailedAuthIsAnsweredThenTheConnectionCloses() {
        c.send(OpCode.AUTH_XID, OpCode.AUTH, new AuthPacket(0, "digest", DATA));
        Conversation.Read r = c.answer(new Message.Reply(-4, 0x77, ZkException.Code.AUTH_FAILED.intValue(), null,
                "refused"), null);
        assertEquals(KeeperException.Code.AUTHFAILED.intValue(), r.header().getErr());
        assertEquals(0, r.header().getZxid());
        assertTrue(r.close());
    }

    @Test
    void closeSessionIsAnsweredThenTheConnectionCloses() {
        c.send(12, OpCode.CLOSE_SESSION, null);
        assertTrue(c.answer(new Message.Reply(12, 5, 0, null, null), null).close());
    }

    @Test
    void everyErrorIsTheHeaderAloneWithZooKeepersCode() {
        for (ZkException.Code code : ZkException.Code.values()) {
            if (code == ZkException.Code.OK) {
                continue;
            }
            c.send(3, OpCode.GET_DATA, new GetDataRequest("/x", false));
            Conversation.Read r = c.answer(new Message.Reply(3, 0x44, code.intValue(), null, "why"),
                    new GetDataResponse());
            assertEquals(ErrorCodes.toZooKeeper(code), r.header().getErr(), code.name());
            assertEquals(0x44, r.header().getZxid());
            assertFalse(r.close());
        }
    }

    @Test
    void aMultiAnswersEachOpAsItsTypeAsks() throws Exception {
        MultiOperationRecord ops = new MultiOperationRecord(List.of(
                org.apache.zookeeper.Op.create("/m", DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        org.apache.zookeeper.CreateMode.PERSISTENT),
                org.apache.zookeeper.Op.create("/m/c", DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        org.apache.zookeeper.CreateMode.CONTAINER),
                org.apache.zookeeper.Op.create("/m/s", DATA, org.apache.zookeeper.CreateOptions.newBuilder(
                        ZooDefs.Ids.OPEN_ACL_UNSAFE, org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL).build()),
                org.apache.zookeeper.Op.setData("/m", DATA, -1),
                org.apache.zookeeper.Op.check("/m", 1),
                org.apache.zookeeper.Op.delete("/m/c", -1)));
        c.send(7, OpCode.MULTI, ops);
        MultiResponse response = new MultiResponse();
        ok(7, new Message.MultiBody(new OpResult[] {
                new OpResult.CreateResult("/m", STAT), new OpResult.CreateResult("/m/c", STAT),
                new OpResult.CreateResult("/m/s0000000000", STAT), new OpResult.SetDataResult(STAT),
                new OpResult.CheckResult(), new OpResult.DeleteResult()}), response);
        List<org.apache.zookeeper.OpResult> results = response.getResultList();
        assertEquals(6, results.size());
        org.apache.zookeeper.OpResult.CreateResult plain =
                assertInstanceOf(org.apache.zookeeper.OpResult.CreateResult.class, results.get(0));
        assertEquals(ZooDefs.OpCode.create, plain.getType());
        assertEquals("/m", plain.getPath());
        assertNull(plain.getStat(), "a create op answers the path alone, as ZooKeeper's");
        for (int i : new int[] {1, 2}) {
            org.apache.zookeeper.OpResult.CreateResult c2 =
                    assertInstanceOf(org.apache.zookeeper.OpResult.CreateResult.class, results.get(i));
            assertEquals(ZooDefs.OpCode.create2, c2.getType(), "createContainer and create2 ops answer as create2");
            assertStat(STAT, c2.getStat());
        }
        assertEquals("/m/s0000000000", ((org.apache.zookeeper.OpResult.CreateResult) results.get(2)).getPath());
        assertStat(STAT, assertInstanceOf(org.apache.zookeeper.OpResult.SetDataResult.class, results.get(3))
                .getStat());
        assertInstanceOf(org.apache.zookeeper.OpResult.CheckResult.class, results.get(4));
        assertInstanceOf(org.apache.zookeeper.OpResult.DeleteResult.class, results.get(5));
    }

    @Test
    void aMultiReadAnswersEachReadAloneAsTheApacheClientReadsIt() {
        c.send(10, OpCode.MULTI_READ, new MultiOperationRecord(List.of(org.apache.zookeeper.Op.getData("/a"),
                org.apache.zookeeper.Op.getChildren("/"), org.apache.zookeeper.Op.getData("/missing"),
                org.apache.zookeeper.Op.getChildren("/secret"))));
        MultiResponse response = new MultiResponse();
        ok(10, new Message.MultiBody(new OpResult[] {new OpResult.GetDataResult(DATA, STAT),
                new OpResult.GetChildrenResult(List.of("a", "zookeeper")),
                new OpResult.ErrorResult(ZkException.Code.NO_NODE),
                new OpResult.ErrorResult(ZkException.Code.NO_AUTH)}), response);
        List<org.apache.zookeeper.OpResult> results = response.getResultList();
        assertEquals(4, results.size());
        org.apache.zookeeper.OpResult.GetDataResult d =
                assertInstanceOf(org.apache.zookeeper.OpResult.GetDataResult.class, results.get(0));
        assertEquals(ZooDefs.OpCode.getData, d.getType());
        assertArrayEquals(DATA, d.getData());
        assertStat(STAT, d.getStat());
        org.apache.zookeeper.OpResult.GetChildrenResult ch =
                assertInstanceOf(org.apache.zookeeper.OpResult.GetChildrenResult.class, results.get(1));
        assertEquals(List.of("a", "zookeeper"), ch.getChildren());
        assertEquals(KeeperException.Code.NONODE.intValue(),
                assertInstanceOf(org.apache.zookeeper.OpResult.ErrorResult.class, results.get(2)).getErr());
        assertEquals(KeeperException.Code.NOAUTH.intValue(),
                assertInstanceOf(org.apache.zookeeper.OpResult.ErrorResult.class, results.get(3)).getErr());
        // refused as a whole: the header's error
        c.send(11, OpCode.MULTI_READ, new MultiOperationRecord());
        assertEquals(KeeperException.Code.BADARGUMENTS.intValue(), c.answer(new Message.Reply(11, 1,
                ZkException.Code.BAD_ARGUMENTS.intValue(), null, null), new MultiResponse()).header().getErr());
    }

    @Test
    void getEphemeralsGetAllChildrenNumberWhoAmIAndCheckWatches() {
        c.send(1, OpCode.GET_EPHEMERALS, new org.apache.zookeeper.proto.GetEphemeralsRequest("/"));
        org.apache.zookeeper.proto.GetEphemeralsResponse e = new org.apache.zookeeper.proto.GetEphemeralsResponse();
        ok(1, new Message.PathsBody(new String[] {"/a/e1", "/b"}), e);
        assertEquals(List.of("/a/e1", "/b"), e.getEphemerals());
        c.send(2, OpCode.GET_ALL_CHILDREN_NUMBER, new org.apache.zookeeper.proto.GetAllChildrenNumberRequest("/"));
        org.apache.zookeeper.proto.GetAllChildrenNumberResponse n =
                new org.apache.zookeeper.proto.GetAllChildrenNumberResponse();
        ok(2, new Message.CountBody(12345), n);
        assertEquals(12345, n.getTotalNumber());
        c.send(3, OpCode.WHO_AM_I, null);
        org.apache.zookeeper.proto.WhoAmIResponse who = new org.apache.zookeeper.proto.WhoAmIResponse();
        ok(3, new Message.ClientInfoBody(new dev.zkr.client.ClientInfo[] {
                new dev.zkr.client.ClientInfo("ip", "127.0.0.1"), new dev.zkr.client.ClientInfo("super", ""),
                new dev.zkr.client.ClientInfo("digest", "alice")}), who);
        assertEquals(List.of(new org.apache.zookeeper.data.ClientInfo("ip", "127.0.0.1"),
                new org.apache.zookeeper.data.ClientInfo("super", ""),
                new org.apache.zookeeper.data.ClientInfo("digest", "alice")), who.getClientInfo());
        c.send(4, OpCode.CHECK_WATCHES, new org.apache.zookeeper.proto.CheckWatchesRequest("/w", 2));
        ok(4, null, null);
        c.send(5, OpCode.CHECK_WATCHES, new org.apache.zookeeper.proto.CheckWatchesRequest("/w", 5));
        assertEquals(KeeperException.Code.NOWATCHER.intValue(), c.answer(new Message.Reply(5, 1,
                ZkException.Code.NO_WATCHER.intValue(), null, null), null).header().getErr());
        c.send(6, OpCode.GET_ALL_CHILDREN_NUMBER, new org.apache.zookeeper.proto.GetAllChildrenNumberRequest("/x"));
        assertEquals(KeeperException.Code.NONODE.intValue(), c.answer(new Message.Reply(6, 1,
                ZkException.Code.NO_NODE.intValue(), null, null), n).header().getErr());
    }

    @Test
    void aFailedMultiIsErrZeroWithEveryOpsResult() {
        c.send(8, OpCode.MULTI, new MultiOperationRecord(List.of(org.apache.zookeeper.Op.check("/a", 1),
                org.apache.zookeeper.Op.delete("/b", 3), org.apache.zookeeper.Op.create("/c", DATA,
                        ZooDefs.Ids.OPEN_ACL_UNSAFE, org.apache.zookeeper.CreateMode.EPHEMERAL))));
        MultiResponse response = new MultiResponse();
        Conversation.Read r = c.answer(new Message.Reply(8, 0x90, ZkException.Code.BAD_VERSION.intValue(),
                new Message.MultiBody(new OpResult[] {new OpResult.ErrorResult(ZkException.Code.OK),
                        new OpResult.ErrorResult(ZkException.Code.BAD_VERSION),
                        new OpResult.ErrorResult(ZkException.Code.RUNTIME_INCONSISTENCY)}), "failed"), response);
        assertEquals(0, r.header().getErr(), "ZooKeeper's multi reply header is OK; the ops carry the error");
        List<Integer> errs = response.getResultList().stream()
                .map(o -> ((org.apache.zookeeper.OpResult.ErrorResult) o).getErr()).toList();
        assertEquals(List.of(0, KeeperException.Code.BADVERSION.intValue(),
                KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()), errs);
        // a multi refused as a whole (no per-op results) is the header's error
        c.send(9, OpCode.MULTI, new MultiOperationRecord());
        assertEquals(KeeperException.Code.SESSIONEXPIRED.intValue(), c.answer(new Message.Reply(9, 1,
                ZkException.Code.SESSION_EXPIRED.intValue(), null, null), new MultiResponse()).header().getErr());
    }

    @Test
    void watchEventsAreNotificationsAtMinusOne() {
        Object[][] cases = {
                {WatchedEvent.Type.NODE_CREATED, Watcher.Event.EventType.NodeCreated},
                {WatchedEvent.Type.NODE_DELETED, Watcher.Event.EventType.NodeDeleted},
                {WatchedEvent.Type.NODE_DATA_CHANGED, Watcher.Event.EventType.NodeDataChanged},
                {WatchedEvent.Type.NODE_CHILDREN_CHANGED, Watcher.Event.EventType.NodeChildrenChanged},
                {WatchedEvent.Type.DATA_WATCH_REMOVED, Watcher.Event.EventType.DataWatchRemoved},
                {WatchedEvent.Type.CHILD_WATCH_REMOVED, Watcher.Event.EventType.ChildWatchRemoved},
                {WatchedEvent.Type.PERSISTENT_WATCH_REMOVED, Watcher.Event.EventType.PersistentWatchRemoved},
        };
        assertEquals(WatchedEvent.Type.values().length, cases.length);
        for (Object[] k : cases) {
            WatcherEvent e = new WatcherEvent();
            Conversation.Read r = c.answer(new Message.WatchEvent((WatchedEvent.Type) k[0], "/w/x", 0x1234), e);
            assertEquals(-1, r.header().getXid());
            assertEquals(0x1234, r.header().getZxid());
            assertEquals(0, r.header().getErr());
            assertFalse(r.close());
            // as ClientCnxn builds the event it hands to watchers
            org.apache.zookeeper.WatchedEvent we = new org.apache.zookeeper.WatchedEvent(e, r.header().getZxid());
            assertEquals(k[1], we.getType());
            assertEquals(Watcher.Event.KeeperState.SyncConnected, we.getState());
            assertEquals("/w/x", we.getPath());
            assertEquals(0x1234, we.getZxid());
        }
        assertEquals(0, c.translator.inFlight(), "events answer no request");
    }

    @Test
    void repliesMustComeInRequestOrderWithTheirBody() {
        c.send(1, OpCode.GET_DATA, new GetDataRequest("/a", false));
        c.send(2, OpCode.GET_DATA, new GetDataRequest("/b", false));
        assertThrows(IllegalStateException.class, () -> c.translator.encode(new Message.Reply(2, 1, 0,
                new Message.DataBody(DATA, STAT), null), Unpooled.buffer()));

        Conversation fresh = new Conversation();
        assertThrows(IllegalStateException.class, () -> fresh.translator.encode(new Message.Reply(1, 1, 0, null,
                null), Unpooled.buffer()), "no request in flight");
        fresh.send(1, OpCode.GET_DATA, new GetDataRequest("/a", false));
        assertThrows(IllegalStateException.class, () -> fresh.translator.encode(new Message.Reply(1, 1, 0,
                new Message.StatBody(STAT), null), Unpooled.buffer()), "a Stat where data belongs");
        assertThrows(IllegalArgumentException.class, () -> fresh.translator.encode(new Message.PingRequest(1),
                Unpooled.buffer()));
    }
}
