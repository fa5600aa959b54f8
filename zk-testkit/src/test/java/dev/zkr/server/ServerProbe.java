package dev.zkr.server;

/** Test access to server state the public API does not show. */
public final class ServerProbe {

    private ServerProbe() {
    }

    /** The zxid of the last txn the server's log reports fsynced (logged, not necessarily committed). */
    public static long durableZxid(ZkServer server) {
        return server.durableZxid();
    }

    /** Subjects of the verified TLS client certificates of the server's open client connections. */
    public static java.util.List<String> clientCertificateSubjects(ZkServer server) {
        return server.clientCertificateSubjects();
    }
}
