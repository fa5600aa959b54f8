package dev.zkr.server.peer;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * A PeerTransport alone in its own JVM, for kill -9 tests: {@code PeerProcess <serverId> <id=host:port>...}. Prints
 * "ready" once its port is bound, then runs until killed.
 */
public final class PeerProcess {

    private PeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        int self = Integer.parseInt(args[0]);
        Map<Integer, InetSocketAddress> members = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String[] idAddress = args[i].split("=");
            String[] hostPort = idAddress[1].split(":");
            members.put(Integer.parseInt(idAddress[0]),
                    new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
        }
        new PeerTransport(PeerConfig.of(self, members), (from, message) -> { }, new LinkFilter()).start();
        System.out.println("ready");
        System.out.flush();
        Thread.currentThread().join();
    }
}
