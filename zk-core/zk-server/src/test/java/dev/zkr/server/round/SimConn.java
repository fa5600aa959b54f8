package dev.zkr.server.round;

import java.util.List;

/**
 * One simulated client connection (a TCP connection): FIFO both ways, each direction's messages arriving after a
 * seeded delay but never before an earlier one; once either side closes or the server dies, nothing more crosses
 * (a reset drops what was in flight). Its server side is a real {@link Connection} whose {@link Connection.Sink} is
 * this object: each round's messages are handed over at the end of the round, as to an event loop.
 */
final class SimConn implements Connection.Sink {

    /** Where the handed-over messages go (the simulator schedules their arrival). */
    interface Wire {
        void toClient(SimConn conn, List<Object> batch, int replies);
    }

    final int id;
    final SimClient client;
    final int server;
    /** The server incarnation this connection was accepted by. */
    final int incarnation;
    private final Wire wire;
    /** The server side, set once the server accepted it. */
    Connection connection;
    /** False once the connection is closed, reset or its server died: nothing more is delivered either way. */
    boolean open = true;
    /** The server has been told of the close ({@code Pipeline.disconnected}). */
    boolean serverSawClose;
    long lastToServer;
    long lastToClient;

    SimConn(int id, SimClient client, int server, int incarnation, Wire wire) {
        this.id = id;
        this.client = client;
        this.server = server;
        this.incarnation = incarnation;
        this.wire = wire;
    }

    @Override
    public void deliver(List<Object> batch, int replies) {
        wire.toClient(this, batch, replies);
    }

    @Override
    public String toString() {
        return "conn" + id + "(c" + client.id + "-s" + server + ")";
    }
}
