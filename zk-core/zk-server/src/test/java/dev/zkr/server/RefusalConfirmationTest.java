package dev.zkr.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException;
import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.session.SessionTable;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;
import dev.zkr.tree.TxnPreparer;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * An ensemble leader's refusals (a write that failed validation) wait for a quorum's confirmation that it still
 * leads (whole-server simulator seed 21680: a deposed leader, cut off with one follower, answered BAD_VERSION for a
 * node the new leader had deleted). The pipeline runs over a scripted {@link Quorum}.
 */
class RefusalConfirmationTest {

    private static final long SESSION = 0x0100_0000_0000_0001L;
    private static final long NOW = 10_000;

    /** A quorum whose role, commits and read points the test sets. */
    private static final class ScriptedQuorum implements Quorum {
        RoleInfo role = new RoleInfo(Role.FOLLOWER, -1, 1, false);
        final List<TxnCodec.Entry> toAdd = new ArrayList<>();
        final List<Long> asked = new ArrayList<>();
        final List<long[]> answers = new ArrayList<>();
        long committed;

        @Override
        public void append(TxnHeader header, Txn txn) {
        }

        @Override
        public void durable(long zxid) {
        }

        @Override
        public long drive(Stream stream) {
            toAdd.forEach(stream::add);
            toAdd.clear();
            answers.forEach(a -> stream.readState(a[0], a[1]));
            answers.clear();
            return committed;
        }

        @Override
        public boolean inService() {
            return role.role() == Role.LEADER && role.inService();
        }

        @Override
        public long serviceStart() {
            return Zxid.of(role.epoch(), 0);
        }

        @Override
        public RoleInfo role() {
            return role;
        }

        @Override
        public void readIndex(long ctx) {
            asked.add(ctx);
        }
    }

    private final ScriptedQuorum quorum = new ScriptedQuorum();
    private final List<Message.Reply> replies = new ArrayList<>();
    private final Pipeline pipeline;
    private final Connection client;
    private final DataTree tree = new DataTree();

    RefusalConfirmationTest() {
        ServerConfig config = ServerConfig.builder(Path.of("/nonexistent/zkr-refusal")).serverId(1)
                .tickTime(Duration.ofMillis(300)).electionTimeout(Duration.ofMillis(150))
                .heartbeatInterval(Duration.ofMillis(30)).member(1, "127.0.0.1", 20_001, 10_001)
                .member(2, "127.0.0.1", 20_002, 10_002).member(3, "127.0.0.1", 20_003, 10_003).build();
        tree.apply(new TxnHeader(Zxid.of(1, 1), NOW, SESSION, 1), new Txn.CreateSession(SESSION, 30_000,
                new byte[16]));
        SessionTable sessions = new SessionTable(new SessionTable.Config(1, config.minSessionTimeoutMs(),
                config.maxSessionTimeoutMs()), NOW, new byte[32]);
        sessions.restore(tree.sessions().values(), NOW);
        WatchTable watches = new WatchTable();
        SessionGate gate = new SessionGate(config, sessions, tree, watches);
        PrepStage prep = new PrepStage(new TxnPreparer(tree, config.maxDataSize(), config.maxEphemeralsPerSession(),
                config.maxTxnBytes()), -1, Zxid.of(1, 0));
        ApplyStage apply = new ApplyStage(tree, prep, watches, gate);
        LogStage logStage = new LogStage(new SimLog("s1", (delay, what, action) -> { }, new SplittableRandom(1),
                false));
        Outbox outbox = new Outbox();
        pipeline = new Pipeline(tree, gate, new ReadStage(tree, watches, apply), prep, logStage, quorum, apply,
                new Housekeeping(config, tree, gate, null), outbox, (to, m) -> { }, 1, true, 150, 30);
        client = new Connection((batch, n) -> batch.stream().filter(Message.Reply.class::isInstance)
                .map(Message.Reply.class::cast).forEach(replies::add), outbox);
        client.sessionId = SESSION;
        // this server wins epoch 2 and applies its EPOCH record
        quorum.role = new RoleInfo(Role.LEADER, 1, 2, true);
        quorum.toAdd.add(new TxnCodec.Entry(new TxnHeader(Zxid.of(2, 0), NOW, 0, TxnHeader.NO_XID),
                new Txn.NewEpoch(2, 1)));
        quorum.committed = Zxid.of(2, 0);
        round();
        round();
        assertTrue(pipeline.serving(), "leads epoch 2 in service");
    }

    private void round() {
        pipeline.endRound(NOW, true);
    }

    private void send(Message.Request r) {
        pipeline.requests(List.of(new Core.Inbound(client, r)), NOW, true);
        round();
    }

    @Test
    void aRefusalIsAnsweredOnlyOnceAQuorumConfirmedTheLeader() {
        send(new Message.DeleteRequest(7, "/missing", -1));
        assertEquals(List.of(), replies, "refused before a quorum confirmed this server still leads");
        assertEquals(1, quorum.asked.size());
        quorum.answers.add(new long[] {quorum.asked.get(0), Zxid.of(2, 0)});
        round();
        assertEquals(1, replies.size());
        assertEquals(7, replies.get(0).xid());
        assertEquals(ZkException.Code.NO_NODE.intValue(), replies.get(0).code());
    }

    @Test
    void theWritesAfterAWaitingRefusalAreAppliedTheirRepliesWaitBehindIt() {
        send(new Message.DeleteRequest(7, "/missing", -1));
        send(new Message.CreateRequest(8, "/k", new byte[0], CreateMode.PERSISTENT));
        quorum.committed = Zxid.of(2, 1);
        round();
        assertTrue(tree.exists("/k") != null, "the leader's tree does not wait for the confirmation");
        assertEquals(List.of(), replies, "replies leave in request order");
        quorum.answers.add(new long[] {quorum.asked.get(0), Zxid.of(2, 0)});
        round();
        assertEquals(List.of(7, 8), replies.stream().map(Message.Reply::xid).toList());
        assertEquals(ZkException.Code.NO_NODE.intValue(), replies.get(0).code());
        assertEquals(Zxid.of(2, 0), replies.get(0).zxid(), "the refusal's zxid is the tree's when it was decided");
        assertEquals(ZkException.Code.OK.intValue(), replies.get(1).code());
    }

    @Test
    void aRefusalTheQuorumDidNotConfirmIsAConnectionLoss() {
        send(new Message.DeleteRequest(7, "/missing", -1));
        send(new Message.DeleteRequest(8, "/gone", 3));
        assertEquals(List.of(), replies);
        assertEquals(2, quorum.asked.size(), "one read point per round of refusals");
        quorum.answers.add(new long[] {quorum.asked.get(0), 0});
        quorum.answers.add(new long[] {quorum.asked.get(1), Zxid.of(2, 0)});
        round();
        assertEquals(List.of(7, 8), replies.stream().map(Message.Reply::xid).toList());
        assertEquals(ZkException.Code.CONNECTION_LOSS.intValue(), replies.get(0).code());
        assertEquals(ZkException.Code.NO_NODE.intValue(), replies.get(1).code());
    }
}
