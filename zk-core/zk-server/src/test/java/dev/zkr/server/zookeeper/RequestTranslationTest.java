package dev.zkr.server.zookeeper;

import dev.zkr.client.Acl;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.WatcherType;
import dev.zkr.wire.Message;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetAllChildrenNumberRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetEphemeralsRequest;
import org.apache.zookeeper.proto.GetSASLRequest;
import org.apache.zookeeper.proto.ReconfigRequest;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetWatches;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.SyncRequest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every opcode of ZooKeeper 3.9's client, encoded as that client encodes it (its jute records; multis with its own
 * {@code MultiOperationRecord} and {@code Op}s), as the zkr request the server gets, or the answer the translator
 * gives itself, read back as the client reads it.
 */
class RequestTranslationTest {

    private static final byte[] DATA = "payload".getBytes(StandardCharsets.UTF_8);
    private static final List<ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;
    private static final List<ACL> DIGEST = List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN,
            new Id("digest", "alice:hash")), new ACL(ZooDefs.Perms.ALL, new Id("ip", "10.0.0.0/8")));

    private final Conversation c = new Conversation();

    private static void assertAcl(List<ACL> expected, Acl[] actual) {
        assertEquals(expected.size(), actual.length);
        for (int i = 0; i < actual.length; i++) {
            assertEquals(expected.get(i).getPerms(), actual[i].perms());
            assertEquals(expected.get(i).getId().getScheme(), actual[i].id().scheme());
            assertEquals(expected.get(i).getId().getId(), actual[i].id().id());
        }
    }

    /** A request the translator answers itself, with this error, at the server's zxid, the connection kept. */
    private static void answeredWith(int err, int xid, int type, org.apache.jute.Record record) {
        Conversation c = new Conversation();
        c.standIn(xid, type, record);
        Conversation.Read r = c.pingAnswer(xid, 0x500, null);
        assertEquals(xid, r.header().getXid());
        assertEquals(0x500, r.header().getZxid());
        assertEquals(err, r.header().getErr());
        assertFalse(r.close());
    }

    // ---- create, create2, createContainer, createTTL --------------------------------------------------------------

    @Test
    void createFlagsBecomeZkrModesAsZooKeeperTreatsThem() {
        Object[][] cases = {
                {OpCode.CREATE, 0, CreateMode.PERSISTENT}, {OpCode.CREATE, 1, CreateMode.EPHEMERAL},
                {OpCode.CREATE, 2, CreateMode.PERSISTENT_SEQUENTIAL}, {OpCode.CREATE, 3, CreateMode.EPHEMERAL_SEQUENTIAL},
                // create with the container flag makes a plain node in ZooKeeper (a CreateTxn has no container owner)
                {OpCode.CREATE, 4, CreateMode.PERSISTENT},
                {OpCode.CREATE2, 0, CreateMode.PERSISTENT}, {OpCode.CREATE2, 1, CreateMode.EPHEMERAL},
                {OpCode.CREATE2, 2, CreateMode.PERSISTENT_SEQUENTIAL}, {OpCode.CREATE2, 3, CreateMode.EPHEMERAL_SEQUENTIAL},
                {OpCode.CREATE2, 4, CreateMode.PERSISTENT},
                {OpCode.CREATE_CONTAINER, 4, CreateMode.CONTAINER}, {OpCode.CREATE_CONTAINER, 0, CreateMode.CONTAINER},
                {OpCode.CREATE_CONTAINER, 1, CreateMode.CONTAINER},
        };
        int xid = 1;
        for (Object[] k : cases) {
            int type = (int) k[0];
            Message.CreateAclRequest r = c.sent(xid, type, new CreateRequest("/app/n", DATA, DIGEST, (int) k[1]),
                    Message.CreateAclRequest.class);
            assertEquals("/app/n", r.path());
            assertArrayEquals(DATA, r.data());
            assertEquals(k[2], r.mode(), OpCode.name(type) + " flags " + k[1]);
            assertAcl(DIGEST, r.acls());
            xid++;
        }
    }

    @Test
    void theApacheClientsOwnFlagsMapToTheSameModes() {
        for (org.apache.zookeeper.CreateMode m : org.apache.zookeeper.CreateMode.values()) {
            int flag = m.toFlag();
            if (m.isTTL()) {
                // ZooKeeper.create with a TTL sends createTTL; without one a TTL mode is refused (it has no TTL)
                answeredWith(ErrorCodes.BAD_ARGUMENTS, 3, OpCode.CREATE2, new CreateRequest("/t", DATA, OPEN, flag));
                Message.CreateTtlRequest r = c.sent(3, OpCode.CREATE_TTL, new CreateTTLRequest("/n", DATA, OPEN, flag,
                        1000), Message.CreateTtlRequest.class);
                assertEquals(1000, r.ttlMs());
                assertEquals(m.isSequential(), r.mode().isSequential(), m.name());
                assertTrue(r.mode().isTtl(), m.name());
                c.answer(new Message.Reply(3, 1, 0, new Message.CreateBody("/n", new dev.zkr.client.Stat(1, 1, 1, 0,
                        0, 0, 0, 0, 0, 0, 0)), null), new org.apache.zookeeper.proto.Create2Response());
                continue;
            }
            int op = m.isContainer() ? OpCode.CREATE_CONTAINER : OpCode.CREATE2; // as ZooKeeper.create picks it
            CreateMode mode = c.sent(3, op, new CreateRequest("/n", DATA, OPEN, flag),
                    Message.CreateAclRequest.class).mode();
            c.answer(new Message.Reply(3, 1, 0, new Message.CreateBody("/n", new dev.zkr.client.Stat(1, 1, 1, 0, 0,
                    0, 0, 0, 0, 0, 0)), null), new org.apache.zookeeper.proto.Create2Response());
            assertEquals(m.isEphemeral(), mode.isEphemeral(), m.name());
            assertEquals(m.isSequential(), mode.isSequential(), m.name());
            assertEquals(m.isContainer(), mode.isContainer(), m.name());
        }
    }

    @Test
    void nullDataAndNullAclReachTheServerAsZooKeeperSeesThem() {
        Message.CreateAclRequest r = c.sent(1, OpCode.CREATE, new CreateRequest("/n", null, null, 0),
                Message.CreateAclRequest.class);
        assertNull(r.data());
        assertEquals(0, r.acls().length, "no ACL: the server refuses it INVALID_ACL, as ZooKeeper does");
    }

    @Test
    void badCreatesAreAnsweredAsZooKeeperAnswersThem() {
        // TTL modes outside createTTL: no TTL, BADARGUMENTS (ZooKeeper with extended types on, as zkr always is)
        answeredWith(ErrorCodes.BAD_ARGUMENTS, 1, OpCode.CREATE, new CreateRequest("/t", DATA, OPEN, 5));
        answeredWith(ErrorCodes.BAD_ARGUMENTS, 2, OpCode.CREATE2, new CreateRequest("/t", DATA, OPEN, 6));
        answeredWith(ErrorCodes.BAD_ARGUMENTS, 3, OpCode.CREATE, new CreateRequest("/t", DATA, OPEN, 7));
        answeredWith(ErrorCodes.BAD_ARGUMENTS, 4, OpCode.CREATE2, new CreateRequest("/t", DATA, OPEN, -1));
        answeredWith(ErrorCodes.UNIMPLEMENTED, 5, OpCode.CREATE_CONTAINER, new CreateRequest("/t", DATA, OPEN, 2));
        answeredWith(ErrorCodes.INVALID_ACL, 6, OpCode.CREATE,
                new CreateRequest("/t", DATA, List.of(new ACL(31, new Id(null, "x"))), 0));
        answeredWith(ErrorCodes.MARSHALLING_ERROR, 7, OpCode.CREATE, new GetDataRequest("/t", false));
    }

    @Test
    void createTtlBecomesAZkrTtlCreateAndOtherFlagsAreRefused() {
        Message.CreateTtlRequest r = c.sent(1, OpCode.CREATE_TTL, new CreateTTLRequest("/t", DATA, DIGEST,
                org.apache.zookeeper.CreateMode.PERSISTENT_WITH_TTL.toFlag(), 1000), Message.CreateTtlRequest.class);
        assertEquals(CreateMode.PERSISTENT_WITH_TTL, r.mode());
        assertEquals("/t", r.path());
        assertEquals(1000, r.ttlMs());
        assertAcl(DIGEST, r.acls());
        // the TTL's range is the server's to check (BADARGUMENTS from the preparer, as ZooKeeper's)
        assertEquals(0, c.sent(2, OpCode.CREATE_TTL, new CreateTTLRequest("/t", DATA, OPEN,
                org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL.toFlag(), 0),
                Message.CreateTtlRequest.class).ttlMs());
        answeredWith(ErrorCodes.BAD_ARGUMENTS, 3, OpCode.CREATE_TTL, new CreateTTLRequest("/t", DATA, OPEN, 0, 1000));
        answeredWith(ErrorCodes.BAD_ARGUMENTS, 4, OpCode.CREATE_TTL, new CreateTTLRequest("/t", DATA, OPEN, 9, 1000));
    }

    // ---- the other writes -------------------------------------------------------------------------------------------

    @Test
    void deleteSetDataAndSetAcl() {
        Message.DeleteRequest d = c.sent(1, OpCode.DELETE, new DeleteRequest("/a", 3), Message.DeleteRequest.class);
        assertEquals("/a", d.path());
        assertEquals(3, d.version());
        Message.SetDataRequest s = c.sent(2, OpCode.SET_DATA, new SetDataRequest("/a", DATA, -1),
                Message.SetDataRequest.class);
        assertEquals("/a", s.path());
        assertArrayEquals(DATA, s.data());
        assertEquals(-1, s.version());
        Message.SetAclRequest a = c.sent(3, OpCode.SET_ACL, new SetACLRequest("/a", DIGEST, 7),
                Message.SetAclRequest.class);
        assertEquals("/a", a.path());
        assertAcl(DIGEST, a.acls());
        assertEquals(7, a.aversion());
    }

    @Test
    void multiAsTheApacheClientWritesIt() {
        MultiOperationRecord record = new MultiOperationRecord(List.of(
                org.apache.zookeeper.Op.create("/m", DATA, DIGEST, org.apache.zookeeper.CreateMode.PERSISTENT),
                org.apache.zookeeper.Op.create("/m/c", DATA, OPEN, org.apache.zookeeper.CreateMode.CONTAINER),
                org.apache.zookeeper.Op.create("/m/s", null, org.apache.zookeeper.CreateOptions.newBuilder(OPEN,
                        org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL).build()), // a create2 op
                org.apache.zookeeper.Op.setData("/m", DATA, 4),
                org.apache.zookeeper.Op.check("/m", 5),
                org.apache.zookeeper.Op.delete("/m/x", -1)));
        Message.MultiRequest m = c.sent(9, OpCode.MULTI, record, Message.MultiRequest.class);
        assertEquals(6, m.ops().length);
        Op.Create c0 = assertInstanceOf(Op.Create.class, m.ops()[0]);
        assertEquals("/m", c0.path());
        assertArrayEquals(DATA, c0.data());
        assertEquals(CreateMode.PERSISTENT, c0.mode());
        assertAcl(DIGEST, c0.acls().toArray(new Acl[0]));
        assertEquals(CreateMode.CONTAINER, ((Op.Create) m.ops()[1]).mode());
        Op.Create c2 = (Op.Create) m.ops()[2];
        assertEquals(CreateMode.EPHEMERAL_SEQUENTIAL, c2.mode());
        assertNull(c2.data());
        assertEquals(new Op.SetData("/m", DATA, 4).path(), m.ops()[3].path());
        assertEquals(4, ((Op.SetData) m.ops()[3]).version());
        assertEquals(new Op.Check("/m", 5), m.ops()[4]);
        assertEquals(new Op.Delete("/m/x", -1), m.ops()[5]);
    }

    @Test
    void aTtlCreateInAMultiKeepsItsTtl() {
        Message.MultiRequest m = c.sent(1, OpCode.MULTI, new MultiOperationRecord(List.of(
                org.apache.zookeeper.Op.create("/t", DATA, OPEN,
                        org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, 1000),
                org.apache.zookeeper.Op.delete("/x", -1))), Message.MultiRequest.class);
        Op.Create t = (Op.Create) m.ops()[0];
        assertEquals(CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, t.mode());
        assertEquals(1000, t.ttlMs());
        assertEquals(new Op.Delete("/x", -1), m.ops()[1]);
    }

    @Test
    void anEmptyMultiIsAMultiOfNothing() {
        Message.MultiRequest m = c.sent(1, OpCode.MULTI, new MultiOperationRecord(), Message.MultiRequest.class);
        assertEquals(0, m.ops().length);
    }

    @Test
    void multisZkrCannotTakeAreAnsweredWhole() {
        // read ops in a write multi (ZooKeeper fails to read such a record: MARSHALLINGERROR)
        answeredWith(ErrorCodes.MARSHALLING_ERROR, 2, OpCode.MULTI, new MultiOperationRecord(List.of(
                org.apache.zookeeper.Op.getData("/a"))));
        // a truncated record
        byte[] whole = ApacheWire.bytes(new MultiOperationRecord(List.of(org.apache.zookeeper.Op.delete("/a", 1))));
        Conversation conv = new Conversation();
        Message m = conv.translator.decode(io.netty.buffer.Unpooled.wrappedBuffer(ApacheWire.bytes(
                new org.apache.zookeeper.proto.RequestHeader(3, OpCode.MULTI)), java.util.Arrays.copyOf(whole,
                whole.length - 2)));
        assertInstanceOf(Message.PingRequest.class, m);
        assertEquals(ErrorCodes.MARSHALLING_ERROR, conv.pingAnswer(3, 1, null).header().getErr());
    }

    // ---- reads --------------------------------------------------------------------------------------------------

    @Test
    void readsKeepPathAndWatchFlag() {
        for (boolean watch : new boolean[] {true, false}) {
            Message.ExistsRequest e = c.sent(1, OpCode.EXISTS, new ExistsRequest("/e", watch),
                    Message.ExistsRequest.class);
            assertEquals("/e", e.path());
            assertEquals(watch, e.watch());
            Message.GetDataRequest g = c.sent(2, OpCode.GET_DATA, new GetDataRequest("/g", watch),
                    Message.GetDataRequest.class);
            assertEquals("/g", g.path());
            assertEquals(watch, g.watch());
            Message.GetChildrenRequest ch = c.sent(3, OpCode.GET_CHILDREN, new GetChildrenRequest("/c", watch),
                    Message.GetChildrenRequest.class);
            assertEquals("/c", ch.path());
            assertEquals(watch, ch.watch());
            Message.GetChildrenRequest ch2 = c.sent(4, OpCode.GET_CHILDREN2, new GetChildren2Request("/c2", watch),
                    Message.GetChildrenRequest.class);
            assertEquals("/c2", ch2.path());
            assertEquals(watch, ch2.watch());
        }
        assertEquals("/acl", c.sent(5, OpCode.GET_ACL, new GetACLRequest("/acl"), Message.GetAclRequest.class).path());
        assertEquals("/s", c.sent(6, OpCode.SYNC, new SyncRequest("/s"), Message.SyncRequest.class).path());
    }

    @Test
    void getEphemeralsGetAllChildrenNumberAndWhoAmI() {
        assertEquals("/app", c.sent(1, OpCode.GET_EPHEMERALS, new GetEphemeralsRequest("/app"),
                Message.GetEphemeralsRequest.class).prefix());
        assertEquals("/", c.sent(2, OpCode.GET_EPHEMERALS, new GetEphemeralsRequest("/"),
                Message.GetEphemeralsRequest.class).prefix());
        assertEquals("/a/b", c.sent(3, OpCode.GET_ALL_CHILDREN_NUMBER, new GetAllChildrenNumberRequest("/a/b"),
                Message.GetAllChildrenNumberRequest.class).path());
        c.sent(4, OpCode.WHO_AM_I, null, Message.WhoAmIRequest.class); // the Apache client sends a header only
        answeredWith(ErrorCodes.MARSHALLING_ERROR, 5, OpCode.GET_EPHEMERALS, null);
        answeredWith(ErrorCodes.MARSHALLING_ERROR, 6, OpCode.GET_ALL_CHILDREN_NUMBER, null);
    }

    @Test
    void multiReadAsTheApacheClientWritesIt() {
        // ZooKeeper.multi sends read-only ops as multiRead; its Op.getData/getChildren carry no watch
        Message.MultiReadRequest m = c.sent(1, OpCode.MULTI_READ, new MultiOperationRecord(List.of(
                org.apache.zookeeper.Op.getData("/a"), org.apache.zookeeper.Op.getChildren("/"),
                org.apache.zookeeper.Op.getData("/missing"))), Message.MultiReadRequest.class);
        assertEquals(List.of(Op.getData("/a"), Op.getChildren("/"), Op.getData("/missing")), List.of(m.ops()));
        assertEquals(0, c.sent(2, OpCode.MULTI_READ, new MultiOperationRecord(), Message.MultiReadRequest.class)
                .ops().length);
    }

    @Test
    void multiReadsZooKeeperCannotReadAreAnsweredWhole() {
        // a write op (ZooKeeper's server: "Invalid type of readOp"; mixed kinds: its record refuses them)
        answeredWith(ErrorCodes.MARSHALLING_ERROR, 1, OpCode.MULTI_READ, new MultiOperationRecord(List.of(
                org.apache.zookeeper.Op.delete("/a", -1))));
        byte[] mixed = ApacheWire.bytes(new org.apache.zookeeper.proto.MultiHeader(OpCode.GET_DATA, false, -1),
                new GetDataRequest("/a", false), new org.apache.zookeeper.proto.MultiHeader(OpCode.CHECK, false, -1),
                new CheckVersionRequest("/a", 1), new org.apache.zookeeper.proto.MultiHeader(-1, true, -1));
        Conversation conv = new Conversation();
        Message m = conv.translator.decode(io.netty.buffer.Unpooled.wrappedBuffer(ApacheWire.bytes(
                new org.apache.zookeeper.proto.RequestHeader(2, OpCode.MULTI_READ)), mixed));
        assertInstanceOf(Message.PingRequest.class, m);
        assertEquals(ErrorCodes.MARSHALLING_ERROR, conv.pingAnswer(2, 1, null).header().getErr());
        // truncated
        byte[] whole = ApacheWire.bytes(new MultiOperationRecord(List.of(org.apache.zookeeper.Op.getData("/a"))));
        Conversation cut = new Conversation();
        assertInstanceOf(Message.PingRequest.class, cut.translator.decode(io.netty.buffer.Unpooled.wrappedBuffer(
                ApacheWire.bytes(new org.apache.zookeeper.proto.RequestHeader(3, OpCode.MULTI_READ)),
                java.util.Arrays.copyOf(whole, whole.length - 3))));
        assertEquals(ErrorCodes.MARSHALLING_ERROR, cut.pingAnswer(3, 1, null).header().getErr());
    }

    @Test
    void deleteContainerIsZooKeepersOwn() {
        answeredWith(ErrorCodes.UNIMPLEMENTED, 6, OpCode.DELETE_CONTAINER, new DeleteRequest("/a", -1));
    }

    // ---- watches ----------------------------------------------------------------------------------------------------

    @Test
    void setWatchesAndSetWatches2AtTheirReservedXid() {
        Message.SetWatchesRequest s = c.sent(OpCode.SET_WATCHES_XID, OpCode.SET_WATCHES,
                new SetWatches(0x1234, List.of("/d"), List.of("/e1", "/e2"), List.of("/c")),
                Message.SetWatchesRequest.class);
        assertEquals(0x1234, s.relativeZxid());
        assertArrayEquals(new String[] {"/d"}, s.dataWatches());
        assertArrayEquals(new String[] {"/e1", "/e2"}, s.existWatches());
        assertArrayEquals(new String[] {"/c"}, s.childWatches());
        assertEquals(0, s.persistentWatches().length);
        assertEquals(0, s.persistentRecursiveWatches().length);
        assertEquals(0, c.answer(new Message.Reply(-8, 9, 0, null, null), null).header().getErr());

        Message.SetWatchesRequest s2 = c.sent(OpCode.SET_WATCHES_XID, OpCode.SET_WATCHES2,
                new SetWatches2(0x99, List.of(), List.of(), List.of(), List.of("/p"), List.of("/r", "/r2")),
                Message.SetWatchesRequest.class);
        assertEquals(0x99, s2.relativeZxid());
        assertArrayEquals(new String[] {"/p"}, s2.persistentWatches());
        assertArrayEquals(new String[] {"/r", "/r2"}, s2.persistentRecursiveWatches());
    }

    @Test
    void addWatchModesAreTheApacheClients() {
        assertEquals(AddWatchMode.PERSISTENT, c.sent(1, OpCode.ADD_WATCH, new AddWatchRequest("/w",
                org.apache.zookeeper.AddWatchMode.PERSISTENT.getMode()), Message.AddWatchRequest.class).mode());
        assertEquals(AddWatchMode.PERSISTENT_RECURSIVE, c.sent(2, OpCode.ADD_WATCH, new AddWatchRequest("/w",
                org.apache.zookeeper.AddWatchMode.PERSISTENT_RECURSIVE.getMode()), Message.AddWatchRequest.class)
                .mode());
        answeredWith(ErrorCodes.MARSHALLING_ERROR, 3, OpCode.ADD_WATCH, new AddWatchRequest("/w", 2));
    }

    @Test
    void removeWatchesTypesAreTheApacheClients() {
        Object[][] cases = {
                {org.apache.zookeeper.Watcher.WatcherType.Children, WatcherType.CHILDREN},
                {org.apache.zookeeper.Watcher.WatcherType.Data, WatcherType.DATA},
                {org.apache.zookeeper.Watcher.WatcherType.Any, WatcherType.ANY},
                {org.apache.zookeeper.Watcher.WatcherType.Persistent, WatcherType.PERSISTENT},
                {org.apache.zookeeper.Watcher.WatcherType.PersistentRecursive, WatcherType.PERSISTENT_RECURSIVE},
        };
        int xid = 1;
        for (Object[] k : cases) {
            int type = ((org.apache.zookeeper.Watcher.WatcherType) k[0]).getIntValue();
            Message.RemoveWatchesRequest r = c.sent(xid++, OpCode.REMOVE_WATCHES, new RemoveWatchesRequest("/w",
                    type), Message.RemoveWatchesRequest.class);
            assertEquals("/w", r.path());
            assertEquals(k[1], r.type(), k[0].toString());
            // checkWatches (the Apache client's question before it removes one watcher of several) takes the same
            Message.CheckWatchesRequest cw = c.sent(xid++, OpCode.CHECK_WATCHES, new CheckWatchesRequest("/w",
                    type), Message.CheckWatchesRequest.class);
            assertEquals("/w", cw.path());
            assertEquals(k[1], cw.type(), k[0].toString());
        }
        answeredWith(ErrorCodes.MARSHALLING_ERROR, xid, OpCode.REMOVE_WATCHES, new RemoveWatchesRequest("/w", 9));
        answeredWith(ErrorCodes.MARSHALLING_ERROR, xid + 1, OpCode.CHECK_WATCHES, new CheckWatchesRequest("/w", 0));
    }

    // ---- session --------------------------------------------------------------------------------------------------

    @Test
    void pingAuthAndCloseSession() {
        assertEquals(-2, c.sent(-2, OpCode.PING, null, Message.PingRequest.class).xid());
        Message.AuthRequest a = c.sent(-4, OpCode.AUTH, new AuthPacket(0, "digest",
                "alice:secret".getBytes(StandardCharsets.UTF_8)), Message.AuthRequest.class);
        assertEquals("digest", a.scheme());
        assertArrayEquals("alice:secret".getBytes(StandardCharsets.UTF_8), a.auth());
        c.sent(77, OpCode.CLOSE_SESSION, null, Message.CloseSessionRequest.class);
    }

    @Test
    void saslIsAnsweredAsAServerWithoutSaslAnswersIt() {
        c.standIn(0, OpCode.SASL, new GetSASLRequest(new byte[0]));
        org.apache.zookeeper.proto.SetSASLResponse token = new org.apache.zookeeper.proto.SetSASLResponse();
        Conversation.Read r = c.pingAnswer(0, 0x42, token);
        assertEquals(0, r.header().getErr());
        assertEquals(0, r.header().getZxid(), "ZooKeeper answers sasl outside its pipeline, at zxid 0");
        assertNull(token.getToken());
        assertFalse(r.close());
    }

    @Test
    void reconfigIsAnsweredAsAServerWithReconfigOff() {
        answeredWith(ErrorCodes.RECONFIG_DISABLED, 1, OpCode.RECONFIG,
                new ReconfigRequest("server.4=h:1:2;3", null, null, -1));
        assertEquals(org.apache.zookeeper.KeeperException.Code.RECONFIGDISABLED.intValue(),
                ErrorCodes.RECONFIG_DISABLED);
    }

    @Test
    void withReconfigEnabledReconfigGoesToTheServerAsItIsAndIsAnsweredWithTheConfig() {
        Conversation on = new Conversation(new ZooKeeperTranslator(Integer.MAX_VALUE, n -> { }, true));
        Message.ZooKeeperReconfigRequest r = on.sent(7, OpCode.RECONFIG,
                new ReconfigRequest("server.4=h:1:2;3", "2", null, 0x200000003L), Message.ZooKeeperReconfigRequest.class);
        assertEquals("server.4=h:1:2;3", r.joiningServers());
        assertEquals("2", r.leavingServers());
        assertNull(r.newMembers());
        assertEquals(0x200000003L, r.curConfigId());
        byte[] text = "server.1=h:1:2:participant;3\nversion=200000009".getBytes(StandardCharsets.UTF_8);
        dev.zkr.client.Stat stat = new dev.zkr.client.Stat(0, 0x200000009L, 0, 0, 1234, -1, 0, -1, 0, text.length, 0);
        org.apache.zookeeper.proto.GetDataResponse body = new org.apache.zookeeper.proto.GetDataResponse();
        Conversation.Read read = on.answer(new Message.Reply(7, 0x200000009L, 0, new Message.DataBody(text, stat),
                null), body);
        assertEquals(0, read.header().getErr());
        assertArrayEquals(text, body.getData(), "ZooKeeper's client reads the new config as a GetDataResponse");
        assertEquals(0x200000009L, body.getStat().getMzxid());
        assertEquals(text.length, body.getStat().getDataLength());
        // a record that does not decode: MARSHALLINGERROR, as for any opcode
        on.standIn(8, OpCode.RECONFIG, new org.apache.zookeeper.proto.SyncRequest("/x"));
    }

    @Test
    void aStandInTheServerRefusesIsAnsweredWithTheServersError() {
        c.standIn(4, OpCode.RECONFIG, new ReconfigRequest("server.4=h:1:2;3", null, null, -1));
        Conversation.Read r = c.answer(new Message.Reply(4, 0x31, dev.zkr.client.ZkException.Code.SESSION_EXPIRED
                .intValue(), null, "expired"), null);
        assertEquals(org.apache.zookeeper.KeeperException.Code.SESSIONEXPIRED.intValue(), r.header().getErr());
        assertEquals(0x31, r.header().getZxid());
        assertFalse(r.close());
    }

    @Test
    void requestsInvalidToZooKeeperAreAnsweredUnimplementedThenTheConnectionCloses() {
        for (int type : new int[] {OpCode.CHECK, OpCode.NOTIFICATION, OpCode.ERROR, OpCode.CREATE_SESSION, 23, 99,
                108, 1000, -12, Integer.MIN_VALUE}) {
            Conversation conv = new Conversation();
            conv.standIn(5, type, new CheckVersionRequest("/a", 1));
            assertNull(conv.send(6, OpCode.GET_DATA, new GetDataRequest("/a", false)),
                    "nothing more is handed on once the connection is closing");
            Conversation.Read r = conv.pingAnswer(5, 0x10, null);
            assertEquals(5, r.header().getXid());
            assertEquals(-1, r.header().getZxid(), "ZooKeeper's UnimplementedRequestProcessor: the request's zxid, -1");
            assertEquals(ErrorCodes.UNIMPLEMENTED, r.header().getErr());
            assertTrue(r.close(), OpCode.name(type));
            assertEquals(0, conv.translator.inFlight());
        }
    }
}
