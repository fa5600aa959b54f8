package dev.zkr.server.round;

import dev.zkr.check.Call;
import dev.zkr.check.Outcome;
import dev.zkr.check.SessionReply;
import dev.zkr.check.Znode;
import dev.zkr.check.ZnodeCall;
import dev.zkr.check.ZnodeModel;
import dev.zkr.client.Acl;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A simulated client speaking the real request messages ({@link Message}) over a simulated connection: it opens or
 * re-attaches its session (with its {@code lastZxidSeen}), keeps up to a few requests in flight — create, setData
 * and delete with the version it last saw (a CAS) or any, plain getData, and sync followed by getData (a
 * linearizable read) — on a few keys, pings when idle, and records every invocation and reply in the
 * {@link SimHistory}. Requests without a reply when the connection drops are indeterminate. Owned by the
 * {@link ServerSim}'s event loop.
 *
 * <p>With ACL traffic on ({@link SimAcls}, choices from the client's own random stream): some creates carry an ACL,
 * and some operations are a setAcl (any aversion, or the one last seen, or a guess: may fail with BadVersion) or a
 * getAcl instead. Those two stay out of the history (the register model knows data and version only); their
 * replies, and those of creates, feed {@link SimAcls#observe}. A NoAuth reply fails the run: every ACL grants the
 * clients everything.
 */
final class SimClient {

    /** What the client needs from the simulator. */
    interface Net {
        /** Opens a connection to a server now, or returns null (no server accepts connections). */
        SimConn connect(SimClient client);

        void send(SimConn conn, Message m);

        /** The client closes its side (the server sees the close later). */
        void close(SimConn conn);

        /** Runs {@code action} after {@code delay} ms. */
        void after(long delay, String what, Runnable action);

        long now();

        void trace(String line);

        /**
         * Checks that a reply's zxid is committed (durable on a majority): every reply but a sync's, whose zxid is
         * the leader's read point (its last proposed zxid, which the next leader may truncate).
         */
        void checkCommitted(SimClient client, Message.Reply r);
    }

    private enum State { IDLE, CONNECTING, CONNECTED, CLOSING }

    /** The latest of this client's sessions answered SESSION_EXPIRED (0: none), and the xid so answered. */
    private long expiredSession;
    private int expiredXid;

    /** One request in flight: the operation it belongs to and how its reply maps to an outcome. */
    private record InFlight(SimHistory.Open op, Message.Request request, boolean syncPart, boolean ping,
                            boolean plainRead) {
    }

    /** A write that got a success reply: its session, xid and the reply's zxid (docs/exactly-once.md). */
    record Ack(long sessionId, int xid, long zxid, String what) {
    }

    static final int SESSION_TIMEOUT_MS = 2_000;
    private static final int MAX_IN_FLIGHT = 3;

    final int id;
    private final Net net;
    private final SimHistory history;
    private final SplittableRandom random;
    private final List<String> keys;
    private State state = State.IDLE;
    private SimConn conn;
    private long sessionId;
    private byte[] password;
    private long lastZxidSeen;
    private int nextXid = 1;
    private int refusals;
    private long lastSent;
    private boolean stopped;
    /** Requests in flight by xid (the server answers in order). */
    private final TreeMap<Integer, InFlight> inFlight = new TreeMap<>();
    private int opCounter;
    private long connectingSince;
    /** Sync-then-read operations whose sync failed: their read is a plain one. */
    private final java.util.Set<SimHistory.Open> syncFailed = java.util.Collections.newSetFromMap(
            new java.util.IdentityHashMap<>());
    long opsIssued;
    long sessionsOpened;

    /** False: replies out of order are left to the history checks (to show that they see it). */
    private final boolean checkFifo;
    /**
     * True: no write is sent while a read of the session waits for its reply (a temporary narrowing of the random
     * runs while the server may answer such a read after applying the later write; see ServerSimRegressionTest).
     */
    private final boolean writesWaitForReads;
    /** The ACL traffic's own random stream, or null without it. */
    private final SplittableRandom aclRandom;
    private final SimAcls acls;
    /** The TTL traffic's own random stream, or null without it. */
    private final SplittableRandom ttlRandom;
    /** TTL-node creates this client had acknowledged (all but the failed ones). */
    long ttlCreates;
    /** Per key, the aversion this client last saw. */
    private final java.util.Map<String, Integer> aversions = new java.util.HashMap<>();
    /**
     * Exactly-once ({@link ServerSim.Options#withResend()}): the own random stream of its choices, or null (off). A
     * write whose connection drops while the session lives is sent again, with its xid, on the next connection.
     */
    private SplittableRandom resendRandom;
    /**
     * Exactly-once clients mostly acknowledge (three in four): each write goes as an {@link Message.AckedRequest}
     * with the lowest xid still in flight, so the server keeps only the replies of writes in flight; the others
     * behave as clients before acknowledgements (the server's window alone bounds their replies).
     */
    private boolean acknowledges;
    /** The server of the current connection takes acknowledgements. */
    private boolean serverAcks;
    /** Writes in flight when the connection dropped, by xid: sent again once the session is re-attached. */
    private final TreeMap<Integer, InFlight> toResend = new TreeMap<>();
    /** Writes with a success reply. */
    final List<Ack> acks = new ArrayList<>();
    long resent;
    long dropsAfterWrite;
    long lostWithSession;

    SimClient(int id, Net net, SimHistory history, SplittableRandom random, List<String> keys, boolean checkFifo,
              boolean writesWaitForReads) {
        this(id, net, history, random, keys, checkFifo, writesWaitForReads, null, null, null);
    }

    SimClient(int id, Net net, SimHistory history, SplittableRandom random, List<String> keys, boolean checkFifo,
              boolean writesWaitForReads, SplittableRandom aclRandom, SimAcls acls, SplittableRandom ttlRandom) {
        this.id = id;
        this.ttlRandom = ttlRandom;
        this.aclRandom = aclRandom;
        this.acls = acls;
        this.checkFifo = checkFifo;
        this.writesWaitForReads = writesWaitForReads;
        this.net = net;
        this.history = history;
        this.random = random;
        this.keys = keys;
    }

    /** Turns exactly-once on, its choices drawn from {@code random}. */
    void resend(SplittableRandom random) {
        this.resendRandom = random;
        this.acknowledges = random.nextInt(4) != 0;
    }

    /** The session of a client that acknowledges, whose saved replies are bounded by its in-flight writes, or 0. */
    long acknowledgingSession() {
        return acknowledges ? sessionId : 0;
    }

    /** The most requests this client has in flight (so the most writes whose replies the server may keep for it). */
    static int maxInFlight() {
        return MAX_IN_FLIGHT;
    }

    /** Starts connecting and issuing operations. */
    void start() {
        net.after(random.nextInt(20), "c" + id + " start", this::connect);
    }

    /** Issues no new operations from now on (the ones in flight still complete). */
    void stop() {
        stopped = true;
    }

    /** True when no request of this client waits for a reply and no handshake waits for its answer. */
    boolean quiet() {
        return inFlight.isEmpty() && toResend.isEmpty() && state != State.CONNECTING;
    }

    /** A description of what this client still waits for, for a report. */
    String waitingFor() {
        return state == State.CONNECTING ? "the answer to its handshake on " + conn + " (sent at " + connectingSince
                + ")" : "replies to xids " + inFlight.keySet() + (toResend.isEmpty() ? "" : ", to send again "
                + toResend.keySet());
    }

    // ---- connection ----------------------------------------------------------------------------------------------

    private void connect() {
        if (state != State.IDLE) {
            return;
        }
        SimConn c = net.connect(this);
        if (c == null) {
            net.after(5 + random.nextInt(40), "c" + id + " reconnect", this::connect);
            return;
        }
        conn = c;
        state = State.CONNECTING;
        connectingSince = net.now();
        send(new Message.ConnectRequest(Message.PROTOCOL_VERSION, sessionId, password, SESSION_TIMEOUT_MS,
                lastZxidSeen));
    }

    /** The connection closed (server crash, reset, or the server closed it). */
    void disconnected(SimConn c) {
        if (c != conn) {
            return;
        }
        conn = null;
        loseInFlight();
        boolean closing = state == State.CLOSING;
        state = State.IDLE;
        if (closing) {
            sessionId = 0; // the session was closed on purpose: the next connection opens a new one
            password = null;
        }
        net.after(1 + random.nextInt(30), "c" + id + " reconnect", this::connect);
    }

    private void loseInFlight() {
        if (resendRandom != null && state != State.CLOSING && sessionId != 0) {
            inFlight.forEach((xid, f) -> {
                if (isWrite(f.request)) {
                    toResend.put(xid, f); // its session lives on: sent again on the next connection
                }
            });
            inFlight.keySet().removeAll(toResend.keySet());
        } else {
            loseResends();
        }
        for (InFlight f : inFlight.values()) {
            if (f.op != null && !f.syncPart) {
                history.lose(f.op);
            }
        }
        inFlight.clear();
        syncFailed.clear();
    }

    /** A message from the server on connection {@code c}. */
    void receive(SimConn c, Message m) {
        if (c != conn) {
            return;
        }
        if (m instanceof Message.ConnectResponse r) {
            if (r.sessionId() != sessionId) {
                sessionsOpened++;
                loseResends(); // the session is lost: their outcome is unknown
            }
            sessionId = r.sessionId();
            password = r.password();
            serverAcks = r.protocolVersion() >= Message.ACKS_VERSION;
            refusals = 0;
            state = State.CONNECTED;
            for (var e : toResend.entrySet()) { // in their original order, before anything new
                inFlight.put(e.getKey(), e.getValue());
                resent++;
                send(e.getValue().request);
            }
            toResend.clear();
            schedulePing();
            scheduleNext();
        } else if (m instanceof Message.ConnectRefused r) {
            if (r.code() == ZkException.Code.SESSION_EXPIRED.intValue() || ++refusals > 20) {
                sessionId = 0; // expired (or refused for good): a new session, a new history session
                password = null;
                refusals = 0;
            }
            // the server closes the connection next
        } else if (m instanceof Message.Reply r) {
            onReply(r);
        }
        // watch events: this client sets no watches
    }

    /** The writes kept to be sent again are lost with their session: indeterminate. */
    private void loseResends() {
        for (InFlight f : toResend.values()) {
            lostWithSession++;
            if (f.op != null) {
                history.lose(f.op);
            }
        }
        toResend.clear();
    }

    /** The writes this client sends (TTL creates among them: sent again, checked and acknowledged as the others). */
    static boolean isWrite(Message.Request r) {
        return r instanceof Message.CreateRequest || r instanceof Message.CreateAclRequest
                || r instanceof Message.SetDataRequest || r instanceof Message.DeleteRequest
                || r instanceof Message.SetAclRequest || r instanceof Message.CreateTtlRequest;
    }

    /** Exactly-once: now and then the client drops its connection just after a write reached the server. */
    private void maybeDropAfter(Message.Request r) {
        if (resendRandom == null || !isWrite(r) || resendRandom.nextInt(100) >= 4) {
            return;
        }
        SimConn c = conn;
        net.after(5 + resendRandom.nextInt(30), "c" + id + " drops " + c + " after x" + r.xid(), () -> {
            if (c == conn) {
                dropsAfterWrite++;
                net.close(c);
                disconnected(c);
            }
        });
    }

    private void send(Message m) {
        lastSent = net.now();
        if (acknowledges && serverAcks && m instanceof Message.Request r && PrepStage.isWrite(r)) {
            m = new Message.AckedRequest(inFlight.firstKey(), r); // r is in flight already: its xid at most
        }
        net.send(conn, m);
    }

    private void schedulePing() {
        SimConn c = conn;
        net.after(SESSION_TIMEOUT_MS / 3, "c" + id + " ping", () -> {
            if (c != conn || state != State.CONNECTED) {
                return;
            }
            if (net.now() - lastSent >= SESSION_TIMEOUT_MS / 3 - 1) {
                int xid = nextXid++;
                inFlight.put(xid, new InFlight(null, new Message.PingRequest(xid), false, true, false));
                send(new Message.PingRequest(xid));
            }
            schedulePing();
        });
    }

    // ---- operations ----------------------------------------------------------------------------------------------

    private void scheduleNext() {
        SimConn c = conn;
        net.after(1 + random.nextInt(25), "c" + id + " op", () -> {
            if (c != conn || state != State.CONNECTED || stopped) {
                return;
            }
            if (inFlight.size() < MAX_IN_FLIGHT) {
                issue();
            }
            scheduleNext();
        });
    }

    private void issue() {
        opsIssued++;
        if (aclRandom != null && aclRandom.nextInt(100) < ACL_OP_PERCENT) {
            issueAclOp();
            return;
        }
        if (ttlRandom != null && ttlRandom.nextInt(100) < TTL_OP_PERCENT) {
            issueTtlOp();
            return;
        }
        String key = keys.get(random.nextInt(keys.size()));
        String data = "c" + id + "." + (++opCounter);
        int r = random.nextInt(100);
        if (r < 3) {
            // close the session now and then: the next connection opens a new one
            state = State.CLOSING;
            int xid = nextXid++;
            inFlight.put(xid, new InFlight(null, new Message.CloseSessionRequest(xid), false, true, false));
            send(new Message.CloseSessionRequest(xid));
            return;
        }
        if (writesWaitForReads && r < 55 && inFlight.values().stream().anyMatch(
                f -> f.request instanceof Message.GetDataRequest)) {
            r = 55 + random.nextInt(20); // a plain read instead
        }
        Message.Request req;
        Call call;
        boolean plain = false;
        int version = random.nextInt(3) == 0 ? -1 : random.nextInt(4);
        if (r < 20) {
            call = new ZnodeCall.Create(data);
            if (aclRandom != null && aclRandom.nextInt(2) == 0) {
                acls.creates++;
                req = new Message.CreateAclRequest(nextXid, key, bytes(data), CreateMode.PERSISTENT,
                        SimAcls.pick(aclRandom).toArray(new Acl[0]));
            } else {
                req = new Message.CreateRequest(nextXid, key, bytes(data), CreateMode.PERSISTENT);
            }
        } else if (r < 45) {
            call = new ZnodeCall.SetData(data, version);
            req = new Message.SetDataRequest(nextXid, key, bytes(data), version);
        } else if (r < 55) {
            call = new ZnodeCall.Delete(version);
            req = new Message.DeleteRequest(nextXid, key, version);
        } else if (r < 75) {
            plain = true;
            call = null;
            req = new Message.GetDataRequest(nextXid, key, false);
        } else {
            call = new ZnodeCall.Read();
            SimHistory.Open op = history.invoke(sessionId, key, call);
            int syncXid = nextXid++;
            inFlight.put(syncXid, new InFlight(op, new Message.SyncRequest(syncXid, key), true, false, false));
            send(new Message.SyncRequest(syncXid, key));
            int readXid = nextXid++;
            Message.GetDataRequest read = new Message.GetDataRequest(readXid, key, false);
            inFlight.put(readXid, new InFlight(op, read, false, false, false));
            send(read);
            return;
        }
        SimHistory.Open op = call == null ? null : history.invoke(sessionId, key, call);
        inFlight.put(nextXid++, new InFlight(op, req, false, false, plain));
        send(req);
        maybeDropAfter(req);
    }

    /** Share of operations that are a setAcl or getAcl with ACL traffic on. */
    private static final int ACL_OP_PERCENT = 15;

    /** A setAcl (2 of 3) or a getAcl on a random key; not in the history. */
    private void issueAclOp() {
        String key = keys.get(aclRandom.nextInt(keys.size()));
        int xid = nextXid++;
        Message.Request req;
        if (aclRandom.nextInt(3) < 2) {
            int v = aclRandom.nextInt(4);
            int aversion = v == 0 ? aclRandom.nextInt(3) : v == 1 ? aversions.getOrDefault(key, 0) : -1;
            req = new Message.SetAclRequest(xid, key, SimAcls.pick(aclRandom).toArray(new Acl[0]), aversion);
            acls.setAcls++;
        } else {
            req = new Message.GetAclRequest(xid, key);
            acls.getAcls++;
        }
        inFlight.put(xid, new InFlight(null, req, false, false, false));
        send(req);
        maybeDropAfter(req);
    }

    /** Share of operations that touch TTL nodes with TTL traffic on. */
    private static final int TTL_OP_PERCENT = 20;

    /**
     * An operation on the TTL nodes /t0../t2 (not in the history): create one (TTL 20..420 ms; now and then a
     * sequential one under it), give it a child (which keeps it) or take the child away, renew it with a setData.
     */
    private void issueTtlOp() {
        String node = "/t" + ttlRandom.nextInt(3);
        int xid = nextXid++;
        byte[] data = bytes("c" + id + "." + (++opCounter));
        int r = ttlRandom.nextInt(10);
        long ttl = 20 + ttlRandom.nextInt(400);
        Message.Request req;
        if (r < 4) {
            req = new Message.CreateTtlRequest(xid, node, data, CreateMode.PERSISTENT_WITH_TTL, null, ttl);
        } else if (r == 4) {
            req = new Message.CreateTtlRequest(xid, node + "/s-", data, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
                    null, ttl);
        } else if (r < 7) {
            req = new Message.CreateRequest(xid, node + "/c", data, CreateMode.PERSISTENT);
        } else if (r == 7) {
            req = new Message.DeleteRequest(xid, node + "/c", -1);
        } else {
            req = new Message.SetDataRequest(xid, node, data, -1);
        }
        inFlight.put(xid, new InFlight(null, req, false, false, false));
        send(req);
    }

    /** A setAcl's or getAcl's reply: what it shows must agree with every other sight of that ACL version. */
    private void onAclReply(Message.Request request, Message.Reply r) {
        if (r.code() != ZkException.Code.OK.intValue()) {
            if (request instanceof Message.SetAclRequest s && (r.code() == ZkException.Code.BAD_VERSION.intValue()
                    || r.code() == ZkException.Code.NO_NODE.intValue())) {
                acls.refused.add(new SimAcls.Refused(r.zxid(), s.path(), s.aversion(),
                        ZkException.Code.of(r.code()).name(), "c" + id + " setAcl x" + r.xid()));
            }
            return; // InvalidAcl of the malformed one, ConnectionLoss...
        }
        if (request instanceof Message.SetAclRequest s) {
            dev.zkr.client.Stat stat = ((Message.StatBody) r.body()).stat();
            if (s.aversion() != -1 && stat.aversion() != s.aversion() + 1) {
                throw new ServerSim.Violation("c" + id + ": setAcl x" + r.xid() + " " + s.path() + " at aversion "
                        + s.aversion() + " answered aversion " + stat.aversion());
            }
            if (List.of(s.acls()).equals(SimAcls.INVALID)) {
                throw new ServerSim.Violation("c" + id + ": setAcl x" + r.xid() + " with a malformed ACL succeeded");
            }
            aversions.put(s.path(), stat.aversion());
            acls.acked.add(new SimAcls.Acked(r.zxid(), s.path(), SimAcls.stored(List.of(s.acls())), false,
                    "c" + id + " setAcl x" + r.xid()));
            acls.observe(s.path(), stat, SimAcls.stored(List.of(s.acls())), "c" + id + " setAcl x" + r.xid());
        } else {
            Message.GetAclRequest g = (Message.GetAclRequest) request;
            Message.AclBody b = (Message.AclBody) r.body();
            aversions.put(g.path(), b.stat().aversion());
            acls.observe(g.path(), b.stat(), List.of(b.acls()), "c" + id + " getAcl x" + r.xid());
        }
    }

    /** A create's reply: the node's ACL at aversion 0 is what it asked for. */
    private void onCreated(Message.Request request, Message.Reply r) {
        dev.zkr.client.Stat stat = ((Message.CreateBody) r.body()).stat();
        List<Acl> acl = request instanceof Message.CreateAclRequest c ? SimAcls.stored(List.of(c.acls()))
                : dev.zkr.client.Acls.OPEN_UNSAFE;
        if (acl.equals(SimAcls.INVALID)) {
            throw new ServerSim.Violation("c" + id + ": create x" + r.xid() + " with a malformed ACL succeeded");
        }
        aversions.put(path(request), stat.aversion());
        acls.acked.add(new SimAcls.Acked(r.zxid(), path(request), acl, true, "c" + id + " create x" + r.xid()));
        acls.observe(path(request), stat, acl, "c" + id + " create x" + r.xid());
    }

    private void onReply(Message.Reply r) {
        InFlight f = inFlight.remove(r.xid());
        if (f == null) {
            throw new ServerSim.Violation("c" + id + ": reply to unknown xid " + r.xid() + " (in flight "
                    + inFlight.keySet() + ")");
        }
        if (checkFifo && !inFlight.isEmpty() && inFlight.firstKey() < r.xid()) {
            throw new ServerSim.Violation("c" + id + ": reply to xid " + r.xid() + " before xid "
                    + inFlight.firstKey() + " (session FIFO)");
        }
        if (!f.syncPart && !(f.request instanceof Message.SyncRequest)) {
            net.checkCommitted(this, r);
        }
        if (r.zxid() > lastZxidSeen) {
            lastZxidSeen = r.zxid();
        }
        // an expired session stays expired: a write of it applied after it was answered SESSION_EXPIRED means the
        // server refused a live session
        if (r.code() == ZkException.Code.SESSION_EXPIRED.intValue() && expiredSession != sessionId) {
            expiredSession = sessionId;
            expiredXid = r.xid();
        } else if (expiredSession != 0 && expiredSession == sessionId && isWrite(f.request)
                && r.code() == ZkException.Code.OK.intValue()) {
            throw new ServerSim.Violation("c" + id + ": session 0x" + Long.toHexString(sessionId) + " was answered "
                    + "SESSION_EXPIRED (x" + expiredXid + ") and then its write x" + r.xid() + " was applied: a "
                    + "live session refused as expired");
        }
        if (f.ping || (f.request instanceof Message.CloseSessionRequest)) {
            return;
        }
        if (resendRandom != null && isWrite(f.request) && r.code() == ZkException.Code.SYSTEM_ERROR.intValue()) {
            throw new ServerSim.Violation("c" + id + ": write x" + r.xid() + " on " + path(f.request)
                    + " answered SYSTEM_ERROR (" + r.message() + ")");
        }
        if (resendRandom != null && isWrite(f.request) && r.code() == ZkException.Code.CONNECTION_LOSS.intValue()) {
            throw new ServerSim.Violation("c" + id + ": write x" + r.xid() + " on " + path(f.request)
                    + " answered CONNECTION_LOSS while its session lives (exactly-once)");
        }
        if (isWrite(f.request) && r.code() == ZkException.Code.OK.intValue()) {
            acks.add(new Ack(sessionId, r.xid(), r.zxid(), "c" + id + " " + f.request.getClass().getSimpleName()
                    + " x" + r.xid()));
        }
        if (r.code() == ZkException.Code.NO_AUTH.intValue()) {
            throw new ServerSim.Violation("c" + id + ": xid " + r.xid() + " on " + path(f.request)
                    + " refused NoAuth (every ACL grants the clients everything)");
        }
        if (r.code() == ZkException.Code.INVALID_ACL.intValue() && !SimAcls.INVALID.equals(aclOf(f.request))) {
            throw new ServerSim.Violation("c" + id + ": xid " + r.xid() + " on " + path(f.request) + " with ACL "
                    + aclOf(f.request) + " failed InvalidAcl");
        }
        if (f.request instanceof Message.SetAclRequest || f.request instanceof Message.GetAclRequest) {
            onAclReply(f.request, r);
            return;
        }
        if (f.request instanceof Message.CreateTtlRequest || f.op == null && path(f.request) != null
                && path(f.request).startsWith("/t")) {
            if (f.request instanceof Message.CreateTtlRequest && r.code() == ZkException.Code.OK.intValue()) {
                ttlCreates++;
            }
            return; // TTL traffic: judged by the tree digests, not the history
        }
        String path = path(f.request);
        boolean ok = r.code() == ZkException.Code.OK.intValue();
        if (f.syncPart) {
            if (!ok) { // the read after it is a plain read, not a linearizable one
                syncFailed.add(f.op);
            }
            return;
        }
        if (f.request instanceof Message.GetDataRequest) {
            Znode node;
            if (ok) {
                Message.DataBody b = (Message.DataBody) r.body();
                node = Znode.present(string(b.data()), b.stat().version());
            } else if (r.code() == ZkException.Code.NO_NODE.intValue()) {
                node = Znode.ABSENT;
            } else {
                if (f.op != null) {
                    history.complete(f.op, Outcome.failed(ZkException.Code.of(r.code()).name()));
                }
                return;
            }
            history.reply(SessionReply.read(sessionId, r.xid(), path, r.zxid(), node));
            if (f.op != null) {
                history.complete(f.op, syncFailed.remove(f.op) ? Outcome.failed("SyncFailed") : Outcome.ok(node));
            }
            return;
        }
        if (r.code() == ZkException.Code.CONNECTION_LOSS.intValue()) {
            history.lose(f.op); // the leader changed before it was decided: it may or may not take effect
            return;
        }
        if (!ok) {
            history.complete(f.op, Outcome.failed(errorName(r.code())));
            return;
        }
        Znode after;
        if (f.request instanceof Message.CreateRequest c) {
            after = Znode.present(string(c.data()), ((Message.CreateBody) r.body()).stat().version());
            if (acls != null) {
                onCreated(c, r);
            }
        } else if (f.request instanceof Message.CreateAclRequest c) {
            after = Znode.present(string(c.data()), ((Message.CreateBody) r.body()).stat().version());
            onCreated(c, r);
        } else if (f.request instanceof Message.SetDataRequest s) {
            after = Znode.present(string(s.data()), ((Message.StatBody) r.body()).stat().version());
        } else {
            after = Znode.ABSENT;
        }
        history.reply(SessionReply.write(sessionId, r.xid(), path, r.zxid(), after));
        history.complete(f.op, Outcome.ok(after));
    }

    private static String errorName(int code) {
        ZkException.Code c = ZkException.Code.of(code);
        return switch (c) {
            case NO_NODE -> ZnodeModel.NO_NODE;
            case NODE_EXISTS -> ZnodeModel.NODE_EXISTS;
            case BAD_VERSION -> ZnodeModel.BAD_VERSION;
            default -> c.name();
        };
    }

    /** The ACL a create or setAcl asks for, or null. */
    private static List<Acl> aclOf(Message.Request r) {
        if (r instanceof Message.CreateAclRequest c) {
            return List.of(c.acls());
        } else if (r instanceof Message.SetAclRequest s) {
            return List.of(s.acls());
        }
        return null;
    }

    private static String path(Message.Request r) {
        if (r instanceof Message.CreateRequest c) {
            return c.path();
        } else if (r instanceof Message.CreateAclRequest c) {
            return c.path();
        } else if (r instanceof Message.SetAclRequest s) {
            return s.path();
        } else if (r instanceof Message.GetAclRequest g) {
            return g.path();
        } else if (r instanceof Message.SetDataRequest s) {
            return s.path();
        } else if (r instanceof Message.DeleteRequest d) {
            return d.path();
        } else if (r instanceof Message.GetDataRequest g) {
            return g.path();
        } else if (r instanceof Message.SyncRequest s) {
            return s.path();
        }
        return "?";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    List<Integer> inFlightXids() {
        return new ArrayList<>(inFlight.keySet());
    }
}
