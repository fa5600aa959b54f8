package dev.zkr.server.round;

import dev.zkr.client.EnsembleMember;
import dev.zkr.client.ZkException;

import java.util.Locale;

/**
 * One joining server of ZooKeeper's reconfig, {@code server.N=host:quorumPort:electionPort[:participant|:observer]
 * ;[clientAddress:]clientPort} ({@code [v6address]} for IPv6), as zkr's member: the quorum port is its peer port, the
 * election port (which zkr has no use for) must be a port but is not kept, the client port is required (as ZooKeeper
 * requires it of a joining server), and a client address, if any, must be the wildcard or the host: zkr serves a
 * member's clients and peers on one host. ZooKeeper's several addresses per server ({@code a|b}) are refused.
 */
final class ZooKeeperServerSpec {

    static final String FORMAT = "server.N=host:quorumPort:electionPort[:participant|:observer];[clientAddress:]clientPort";

    private ZooKeeperServerSpec() {
    }

    /**
     * The member {@code spec} names: role VOTER for a participant (the default), OBSERVER for an observer.
     *
     * @throws ZkException.BadArguments with what is wrong, and the format
     */
    static EnsembleMember parse(String spec) {
        String s = spec.trim();
        int eq = s.indexOf('=');
        if (eq < 0) {
            throw bad(s, "no '='");
        }
        String key = s.substring(0, eq).trim();
        String value = s.substring(eq + 1).trim();
        if (!key.startsWith("server.") || key.length() == "server.".length() || key.length() > "server.".length() + 9
                || !key.substring("server.".length()).chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw bad(s, "'" + key + "' is not server.N");
        }
        int id = Integer.parseInt(key.substring("server.".length()));
        if (value.indexOf('|') >= 0) {
            throw bad(s, "several addresses for one server; zkr takes one");
        }
        int semi = value.indexOf(';');
        if (semi < 0) {
            throw bad(s, "no client port (each joining server needs quorum, election and client ports)");
        }
        String client = value.substring(semi + 1).trim();
        String server = value.substring(0, semi).trim();
        String host;
        String rest;
        if (server.startsWith("[")) {
            int close = server.indexOf(']');
            if (close < 0 || close + 1 >= server.length() || server.charAt(close + 1) != ':') {
                throw bad(s, "an IPv6 address is written [address]");
            }
            host = server.substring(1, close);
            rest = server.substring(close + 2);
        } else {
            int colon = server.indexOf(':');
            if (colon <= 0) {
                throw bad(s, "no host");
            }
            host = server.substring(0, colon);
            rest = server.substring(colon + 1);
        }
        if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
            throw bad(s, "no host");
        }
        String[] parts = rest.split(":", -1);
        if (parts.length != 2 && parts.length != 3) {
            throw bad(s, "expected quorumPort:electionPort and an optional role");
        }
        EnsembleMember.Role role = EnsembleMember.Role.VOTER;
        if (parts.length == 3) {
            String r = parts[2].trim().toLowerCase(Locale.ROOT);
            if (r.equals("observer")) {
                role = EnsembleMember.Role.OBSERVER;
            } else if (!r.equals("participant")) {
                throw bad(s, "unknown role '" + parts[2].trim() + "'");
            }
        }
        int peerPort = port(s, "quorumPort", parts[0]);
        port(s, "electionPort", parts[1]);
        int colon = client.lastIndexOf(':');
        if (colon >= 0) {
            String address = client.substring(0, colon).trim();
            if (address.startsWith("[") && address.endsWith("]")) {
                address = address.substring(1, address.length() - 1);
            }
            if (!address.equals(host) && !address.equals("0.0.0.0") && !address.equals("::")
                    && !address.equals("0:0:0:0:0:0:0:0")) {
                throw bad(s, "client address " + address + " is not the server's host " + host + " (zkr serves a "
                        + "member's clients and peers on one host; leave the address out or give 0.0.0.0)");
            }
        }
        int clientPort = port(s, "clientPort", colon >= 0 ? client.substring(colon + 1) : client);
        return new EnsembleMember(id, role, host, peerPort, clientPort);
    }

    private static int port(String spec, String name, String value) {
        int port;
        try {
            port = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw bad(spec, name + " '" + value.trim() + "' is not a number");
        }
        if (port < 1 || port > 65535) {
            throw bad(spec, name + " must be in 1..65535");
        }
        return port;
    }

    private static ZkException.BadArguments bad(String spec, String what) {
        return new ZkException.BadArguments(null, "'" + spec + "': " + what + " (expected " + FORMAT + ")");
    }
}
