package dev.zkr.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stock ZooKeeper client's ceiling: a server that speaks just enough of ZooKeeper's client protocol for the
 * bench's stock-client rows and keeps nothing — no tree, no disk, no consensus. A getData answers 100 bytes, a create
 * answers its path (a sequential one numbered per parent, and the parent's child count kept so that the create row's
 * check of what was stored holds), every other write answers OK, anything else ZooKeeper's UNIMPLEMENTED. One thread
 * per connection, replies flushed when no request is waiting. What the stock client does against it is the most any
 * server can get out of that client on this machine: the floor under the {@code zkclient} rows' ratios.
 * Run in its own JVM: {@code java -cp zk-bench.jar dev.zkr.bench.NullZooKeeperServer <port>}.
 */
final class NullZooKeeperServer {

    static final String MAIN = NullZooKeeperServer.class.getName();

    private static final int UNIMPLEMENTED = -6;
    private static final byte[] DATA = new byte[ServerScenarios.payload().length];

    private final Map<String, AtomicInteger> children = new ConcurrentHashMap<>();
    private final AtomicLong zxid = new AtomicLong();
    private final AtomicLong sessions = new AtomicLong(0x4e554c4c00000000L);

    public static void main(String[] args) throws IOException {
        new NullZooKeeperServer().serve(Integer.parseInt(args[0]));
    }

    private void serve(int port) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress("127.0.0.1", port));
            System.out.println("null ZooKeeper server on port " + port);
            while (true) {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                new Thread(() -> connection(s), "null-server-" + s.getPort()).start();
            }
        }
    }

    private void connection(Socket s) {
        try (s; DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16))) {
            DataInputStream connect = frame(in);
            connect.readInt(); // protocol version
            connect.readLong(); // last zxid seen
            int timeout = connect.readInt();
            long session = connect.readLong();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            DataOutputStream r = new DataOutputStream(reply);
            r.writeInt(0);
            r.writeInt(timeout);
            r.writeLong(session != 0 ? session : sessions.incrementAndGet());
            r.writeInt(16);
            r.write(new byte[16]);
            r.writeBoolean(false);
            send(out, reply);
            out.flush();
            while (true) {
                DataInputStream req = frame(in);
                reply.reset();
                boolean close = answer(req, r);
                send(out, reply);
                if (close) {
                    out.flush();
                    return;
                }
                if (in.available() == 0) {
                    out.flush();
                }
            }
        } catch (EOFException closed) {
            // the client went away
        } catch (IOException e) {
            System.out.println("connection ended: " + e);
        }
    }

    /** Writes the reply to {@code req} into {@code r}; true when the session closes. */
    private boolean answer(DataInputStream req, DataOutputStream r) throws IOException {
        int xid = req.readInt();
        int type = req.readInt();
        switch (type) {
            case 4 -> { // getData
                String path = ustring(req);
                header(r, xid, zxid.get(), 0);
                r.writeInt(DATA.length);
                r.write(DATA);
                stat(r, path);
            }
            case 3 -> { // exists
                String path = ustring(req);
                header(r, xid, zxid.get(), 0);
                stat(r, path);
            }
            case 1, 15, 19, 21 -> { // create, create2, createContainer, createTTL
                String path = ustring(req);
                byte[] data = buffer(req);
                int acls = req.readInt();
                for (int i = 0; i < acls; i++) {
                    req.readInt(); // perms
                    ustring(req); // scheme
                    ustring(req); // id
                }
                int flags = req.readInt();
                boolean sequential = flags == 2 || flags == 3 || flags == 6;
                String parent = path.substring(0, Math.max(1, path.lastIndexOf('/')));
                int n = children.computeIfAbsent(parent, k -> new AtomicInteger()).getAndIncrement();
                String created = sequential ? path + String.format("%010d", n) : path;
                header(r, xid, zxid.incrementAndGet(), 0);
                ustring(r, created);
                if (type != 1) {
                    stat(r, created, data.length);
                }
            }
            case 5 -> { // setData
                String path = ustring(req);
                header(r, xid, zxid.incrementAndGet(), 0);
                stat(r, path);
            }
            case 8, 12 -> { // getChildren, getChildren2
                String path = ustring(req);
                header(r, xid, zxid.get(), 0);
                r.writeInt(0);
                if (type == 12) {
                    stat(r, path);
                }
            }
            case 9 -> { // sync
                String path = ustring(req);
                header(r, xid, zxid.get(), 0);
                ustring(r, path);
            }
            case 2 -> header(r, xid, zxid.incrementAndGet(), 0); // delete
            case 11, 101, 105 -> header(r, xid, zxid.get(), 0); // ping, setWatches, setWatches2
            case -11 -> { // closeSession
                header(r, xid, zxid.get(), 0);
                return true;
            }
            default -> header(r, xid, zxid.get(), UNIMPLEMENTED);
        }
        return false;
    }

    private void stat(DataOutputStream r, String path) throws IOException {
        stat(r, path, DATA.length);
    }

    private void stat(DataOutputStream r, String path, int dataLength) throws IOException {
        AtomicInteger n = children.get(path);
        r.writeLong(1); // czxid
        r.writeLong(1); // mzxid
        r.writeLong(0); // ctime
        r.writeLong(0); // mtime
        r.writeInt(0); // version
        r.writeInt(0); // cversion
        r.writeInt(0); // aversion
        r.writeLong(0); // ephemeralOwner
        r.writeInt(dataLength);
        r.writeInt(n == null ? 0 : n.get());
        r.writeLong(1); // pzxid
    }

    private static DataInputStream frame(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0 || len > (1 << 20)) {
            throw new IOException("bad frame length " + len);
        }
        byte[] body = new byte[len];
        in.readFully(body);
        return new DataInputStream(new ByteArrayInputStream(body));
    }

    private static void send(DataOutputStream out, ByteArrayOutputStream reply) throws IOException {
        out.writeInt(reply.size());
        reply.writeTo(out);
    }

    private static void header(DataOutputStream r, int xid, long zxid, int err) throws IOException {
        r.writeInt(xid);
        r.writeLong(zxid);
        r.writeInt(err);
    }

    private static byte[] buffer(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0) {
            return new byte[0];
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return b;
    }

    private static String ustring(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0) {
            return null;
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void ustring(DataOutputStream r, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        r.writeInt(b.length);
        r.write(b);
    }
}
