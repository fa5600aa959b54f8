package dev.zkr.server;

import dev.zkr.server.ServerConfig.Member;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The {@code server.N=host:peerPort:clientPort} lines of a properties file (or ZooKeeper's
 * {@code host:quorumPort:electionPort[:participant][;[addr:]clientPort]} of a zoo.cfg), and the checks a member list
 * must pass.
 * Pure: no files, no name resolution. Every refusal is an {@link IllegalArgumentException} with one message.
 */
final class MemberList {

    static final String FORMAT = "server.N=host:peerPort:clientPort";

    private MemberList() {
    }

    /** Every {@code server.N} line of {@code p} in zkr's form, in id order; empty when there is none (standalone). */
    static List<Member> parse(Properties p) {
        return parse(p, false);
    }

    /**
     * Every {@code server.N} line of {@code p}, in id order, in ZooKeeper's form when {@code zooKeeperForm}
     * ({@link #parseZooKeeperLine}), else in zkr's; empty when there is none (standalone).
     */
    static List<Member> parse(Properties p, boolean zooKeeperForm) {
        List<Member> members = new ArrayList<>();
        Map<Integer, String> keys = new HashMap<>();
        for (String key : p.stringPropertyNames()) {
            if (!key.startsWith("server.")) {
                continue;
            }
            int id = parseId(key);
            String previous = keys.put(id, key);
            if (previous != null) {
                throw new IllegalArgumentException(previous + " and " + key + " name the same server id " + id);
            }
            members.add(zooKeeperForm ? parseZooKeeperLine(id, p.getProperty(key)) : parseLine(id, p.getProperty(key)));
        }
        members.sort(Comparator.comparingInt(Member::id));
        return members;
    }

    private static int parseId(String key) {
        String n = key.substring("server.".length());
        if (n.isEmpty() || n.length() > 3 || !n.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + key + "' is not a member line: zkr's form is " + FORMAT
                    + " with N in 1..255");
        }
        int id = Integer.parseInt(n);
        if (id < 1 || id > 255) {
            throw new IllegalArgumentException(key + ": server id must be in 1..255");
        }
        return id;
    }

    /**
     * {@code members} with the lines of the ids in {@code ids} (zkr's {@code observers=4,5}: comma-separated server
     * ids, each one of the lines) marked as observers' — zkr's form of zoo.cfg's {@code :observer}.
     */
    static List<Member> withObservers(List<Member> members, String ids) {
        java.util.Set<Integer> observers = new java.util.TreeSet<>();
        for (String id : ids.split(",")) {
            String t = id.trim();
            if (t.isEmpty() || t.length() > 3 || !t.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException("observers=" + ids.trim() + ": expected server ids separated by "
                        + "commas, as observers=4,5");
            }
            observers.add(Integer.parseInt(t));
        }
        List<Member> marked = new ArrayList<>();
        for (Member m : members) {
            marked.add(observers.remove(m.id())
                    ? new Member(m.id(), m.host(), m.peerPort(), m.clientPort(), true) : m);
        }
        if (!observers.isEmpty()) {
            throw new IllegalArgumentException("observers=" + ids.trim() + " names " + observers
                    + ", which no server.N line names");
        }
        return marked;
    }

    /** One line's value, {@code host:peerPort:clientPort} ({@code [v6address]:peerPort:clientPort} for IPv6). */
    static Member parseLine(int id, String value) {
        String line = value.trim();
        String where = "server." + id + "=" + line;
        if (line.indexOf(';') >= 0 || line.toLowerCase(Locale.ROOT).endsWith(":participant")
                || line.toLowerCase(Locale.ROOT).endsWith(":observer")) {
            throw zooKeeperStyle(where);
        }
        String host;
        String rest;
        if (line.startsWith("[")) {
            int close = line.indexOf(']');
            if (close < 0 || close + 1 >= line.length() || line.charAt(close + 1) != ':') {
                throw new IllegalArgumentException(where + ": expected " + FORMAT + " (IPv6 as [address])");
            }
            host = line.substring(1, close);
            rest = line.substring(close + 2);
        } else {
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(where + ": expected " + FORMAT);
            }
            host = line.substring(0, colon);
            rest = line.substring(colon + 1);
        }
        String[] ports = rest.split(":", -1);
        if (ports.length > 2) {
            throw zooKeeperStyle(where);
        }
        if (ports.length != 2 || host.isBlank() || host.trim().chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(where + ": expected " + FORMAT);
        }
        return new Member(id, host.trim(), port(where, "peerPort", ports[0]), port(where, "clientPort", ports[1]));
    }

    static final String ZOOKEEPER_FORMAT =
            "server.N=host:quorumPort:electionPort[:participant|:observer][;[clientAddress:]clientPort]";

    /**
     * One line's value in ZooKeeper's form, {@code host:quorumPort:electionPort[:participant][;[clientAddress:]clientPort]}
     * ({@code [v6address]} for IPv6): the quorum port becomes zkr's peer port, the election port is not used, the
     * client port is the one after {@code ;} or 0 when the line has none (the server's own comes from
     * {@code clientPort} then; the other members' are unknown, as a ZooKeeper server does not know them either).
     * A line marked {@code :observer} is an observer's (it serves clients and never votes).
     */
    static Member parseZooKeeperLine(int id, String value) {
        String line = value.trim();
        String where = "server." + id + "=" + line;
        String client = null;
        int semi = line.indexOf(';');
        if (semi >= 0) {
            client = line.substring(semi + 1).trim();
            line = line.substring(0, semi).trim();
        }
        String host;
        String rest;
        if (line.startsWith("[")) {
            int close = line.indexOf(']');
            if (close < 0 || close + 1 >= line.length() || line.charAt(close + 1) != ':') {
                throw new IllegalArgumentException(where + ": expected " + ZOOKEEPER_FORMAT + " (IPv6 as [address])");
            }
            host = line.substring(1, close);
            rest = line.substring(close + 2);
        } else {
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(where + ": expected " + ZOOKEEPER_FORMAT);
            }
            host = line.substring(0, colon);
            rest = line.substring(colon + 1);
        }
        String[] parts = rest.split(":", -1);
        boolean observer = false;
        if (parts.length == 3) {
            String role = parts[2].trim().toLowerCase(Locale.ROOT);
            observer = role.equals("observer");
            if (!observer && !role.equals("participant")) {
                throw new IllegalArgumentException(where + ": unknown role '" + parts[2].trim() + "' (expected "
                        + ZOOKEEPER_FORMAT + ")");
            }
        } else if (parts.length != 2) {
            throw new IllegalArgumentException(where + ": expected " + ZOOKEEPER_FORMAT);
        }
        if (host.isBlank() || host.trim().chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(where + ": expected " + ZOOKEEPER_FORMAT);
        }
        int quorum = port(where, "quorumPort", parts[0], ZOOKEEPER_FORMAT);
        port(where, "electionPort", parts[1], ZOOKEEPER_FORMAT);
        int clientPort = 0;
        if (client != null) {
            int colon = client.lastIndexOf(':');
            clientPort = port(where, "clientPort", colon >= 0 ? client.substring(colon + 1) : client,
                    ZOOKEEPER_FORMAT);
        }
        return new Member(id, host.trim(), quorum, clientPort, observer);
    }

    private static int port(String where, String name, String value) {
        return port(where, name, value, FORMAT);
    }

    private static int port(String where, String name, String value, String format) {
        int port;
        try {
            port = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": " + name + " is not a number: '" + value.trim()
                    + "' (expected " + format + ")");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(where + ": " + name + " must be in 1..65535");
        }
        return port;
    }

    private static IllegalArgumentException zooKeeperStyle(String where) {
        return new IllegalArgumentException(where + " looks like a ZooKeeper line (host:quorumPort:electionPort"
                + "[:role][;clientPort]) in a zkr file; zkr's form is " + FORMAT + " (one peer port, the client port"
                + " last), or give the file ZooKeeper's initLimit and syncLimit to have it read as a zoo.cfg");
    }

    /**
     * Refuses a list with a server id twice, or an address (host as written, case-insensitive, and port) used twice
     * among all peer and client ports. Port 0 (a port chosen at bind time, embedded use only) is not compared.
     */
    static void checkDistinct(List<Member> members) {
        Map<Integer, Member> ids = new HashMap<>();
        Map<String, String> addresses = new HashMap<>();
        for (Member m : members) {
            if (ids.put(m.id(), m) != null) {
                throw new IllegalArgumentException("server." + m.id() + " appears twice in the member list");
            }
            claim(addresses, m.host(), m.peerPort(), "the peer port of server." + m.id());
            claim(addresses, m.host(), m.clientPort(), "the client port of server." + m.id());
        }
    }

    private static void claim(Map<String, String> addresses, String host, int port, String use) {
        if (port == 0) {
            return;
        }
        String address = host.toLowerCase(Locale.ROOT) + ":" + port;
        String other = addresses.putIfAbsent(address, use);
        if (other != null) {
            throw new IllegalArgumentException(address + " is both " + other + " and " + use
                    + ": every peer and client port of the member list must be distinct");
        }
    }

    /** A warning for a member list that starts but tolerates no more failures than a smaller one; else empty. */
    static Optional<String> sizeWarning(int members) {
        if (members == 2) {
            return Optional.of("an ensemble of 2 tolerates no server failure (a majority of 2 is 2); "
                    + "run 1, 3 or 5 servers");
        }
        if (members > 2 && members % 2 == 0) {
            return Optional.of("an ensemble of " + members + " tolerates no more failures than one of "
                    + (members - 1) + " (" + (members - 1) / 2 + "); run an odd number of servers");
        }
        return Optional.empty();
    }
}
