package dev.zkr.server.admin;

import dev.zkr.client.Children;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the zk-recipes under a path by the node names the recipes write (pure logic over a {@link Tree} reader):
 * locks ({@code lock-}), read-write locks ({@code read-}/{@code write-}), semaphores ({@code lease-<n>-}), fair
 * elections ({@code latch-}), unfair elections ({@code leader} + {@code members}), double barriers ({@code ready} and
 * member nodes), groups (ephemeral members) and queues ({@code item-}, {@code claim-}; the producers' offer ledgers
 * in the sibling {@code <queue>-offers} are counted on the queue, not shown as a group). Sequential names may carry
 * the recipes' protected prefix {@code _c_<uuid>-}. A heuristic: a node that happens to use such names is shown as
 * one.
 */
final class RecipeScan {

    /** What the scan reads. */
    interface Tree {
        /** The child names (any order), or null if the node does not exist. */
        List<String> children(String path);

        /** Data and stat, or null if the node does not exist. */
        NodeData node(String path);
    }

    /** One participant of a recipe: its node, the session owning it, its sequence number (-1 if none) and data. */
    record Participant(String name, long owner, long sequence, String data, long ctime, long czxid) {
    }

    /**
     * A recipe found at {@code path}: {@code kind} (lock, rwlock, semaphore, leader, barrier, group, queue), the
     * holders (lock holder, leader, barrier members, queue items...) and the waiters in order, and details.
     */
    record Recipe(String path, String kind, List<Participant> holders, List<Participant> waiters,
                  Map<String, String> details) {
    }

    private static final Pattern SEQUENTIAL = Pattern.compile("^(?:_c_[0-9a-fA-F-]{36}-)?(.*?)(\\d{10})$");
    /** The suffix of a queue's sibling holding its producers' offer ledgers, one UUID-named node per producer. */
    static final String LEDGERS = "-offers";
    private static final Pattern UUID_NAME =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final int MAX_NODES = 5_000;
    /** Most participants of one recipe read and listed (a lock's first waiters, a queue's oldest items). */
    static final int MAX_PARTICIPANTS = 100;

    private final Tree tree;
    private final long now;

    RecipeScan(Tree tree, long nowMillis) {
        this.tree = tree;
        this.now = nowMillis;
    }

    /** The recipes at {@code root} and below (breadth first, at most {@value #MAX_NODES} nodes visited). */
    List<Recipe> scan(String root) {
        List<Recipe> found = new ArrayList<>();
        ArrayDeque<String> todo = new ArrayDeque<>();
        todo.add(root);
        int visited = 0;
        while (!todo.isEmpty() && visited < MAX_NODES) {
            String path = todo.poll();
            visited++;
            List<String> names = tree.children(path);
            if (names == null || names.isEmpty()) {
                continue;
            }
            Recipe r = classify(path, names);
            if (r != null) {
                found.add(r);
            }
            names.stream().sorted().limit(Math.max(0, MAX_NODES - visited - todo.size()))
                    .forEach(n -> todo.add(child(path, n)));
        }
        return found;
    }

    /** The recipe whose nodes {@code names} are, under {@code path}, or null. */
    Recipe classify(String path, List<String> names) {
        if (path.endsWith(LEDGERS) && names.stream().allMatch(n -> UUID_NAME.matcher(n).matches())) {
            return null; // a queue's offer ledgers: counted on the queue
        }
        Map<String, List<String[]>> byBase = new TreeMap<>();
        List<String> plain = new ArrayList<>();
        for (String n : names) {
            Matcher m = SEQUENTIAL.matcher(n);
            if (m.matches()) {
                byBase.computeIfAbsent(base(m.group(1)), k -> new ArrayList<>()).add(new String[] {n, m.group(2)});
            } else {
                plain.add(n);
            }
        }
        // only the first MAX_PARTICIPANTS of each kind, in sequence order, are read: a huge queue costs one listing
        Map<String, List<Participant>> sequential = new TreeMap<>();
        byBase.forEach((base, nodes) -> {
            nodes.sort(Comparator.comparing((String[] n) -> n[1]));
            List<Participant> read = new ArrayList<>();
            for (String[] n : nodes.subList(0, Math.min(nodes.size(), MAX_PARTICIPANTS))) {
                read.add(participant(path, n[0], Long.parseLong(n[1])));
            }
            sequential.put(base, read);
        });
        if (sequential.containsKey("lock-")) {
            return queued(path, "lock", sequential.get("lock-"), 1, Map.of());
        }
        if (sequential.containsKey("latch-")) {
            return queued(path, "leader", sequential.get("latch-"), 1, Map.of("mode", "fair"));
        }
        if (sequential.containsKey("read-") || sequential.containsKey("write-")) {
            return readWrite(path, sequential);
        }
        if (sequential.containsKey("lease-")) {
            return semaphore(path, sequential.get("lease-"));
        }
        if (plain.contains("leader") || (plain.contains("members") && plain.size() <= 2)) {
            return unfairLeader(path, plain);
        }
        if (names.stream().anyMatch(n -> n.startsWith("item-") || n.startsWith("_c_") && n.contains("-item-"))) {
            return queue(path, names);
        }
        return members(path, plain);
    }

    /** A lock or fair election: the first {@code holding} in sequence order hold, the rest wait in order. */
    private Recipe queued(String path, String kind, List<Participant> nodes, int holding, Map<String, String> details) {
        nodes.sort(Comparator.comparingLong(Participant::sequence));
        int h = Math.min(holding, nodes.size());
        Map<String, String> d = new TreeMap<>(details);
        if (!nodes.isEmpty()) {
            d.put("fencingToken", Long.toString(nodes.get(0).czxid()));
        }
        return new Recipe(path, kind, List.copyOf(nodes.subList(0, h)), List.copyOf(nodes.subList(h, nodes.size())),
                d);
    }

    /** Readers hold while no writer is ahead of them; a writer holds when it is first. */
    private Recipe readWrite(String path, Map<String, List<Participant>> sequential) {
        List<Participant> all = new ArrayList<>();
        all.addAll(sequential.getOrDefault("read-", List.of()));
        all.addAll(sequential.getOrDefault("write-", List.of()));
        all.sort(Comparator.comparingLong(Participant::sequence));
        List<Participant> holders = new ArrayList<>();
        List<Participant> waiters = new ArrayList<>();
        boolean writerAhead = false;
        for (int i = 0; i < all.size(); i++) {
            Participant p = all.get(i);
            boolean write = p.name().contains("write-");
            if (!writerAhead && (!write || i == 0)) {
                holders.add(p);
            } else {
                waiters.add(p);
            }
            writerAhead |= write;
        }
        return new Recipe(path, "rwlock", holders, waiters, Map.of());
    }

    /** The longest prefix of the arrival order whose permits fit hold (the semaphore's rule; total unknown here). */
    private Recipe semaphore(String path, List<Participant> nodes) {
        nodes.sort(Comparator.comparingLong(Participant::sequence));
        int permits = 0;
        for (Participant p : nodes) {
            Matcher m = Pattern.compile("lease-(\\d+)-").matcher(p.name());
            permits += m.find() ? Integer.parseInt(m.group(1)) : 1;
        }
        return new Recipe(path, "semaphore", List.copyOf(nodes), List.of(),
                Map.of("permitsAsked", Integer.toString(permits)));
    }

    private Recipe unfairLeader(String path, List<String> plain) {
        List<Participant> leader = new ArrayList<>();
        if (plain.contains("leader")) {
            leader.add(participant(path, "leader", -1));
        }
        List<Participant> members = new ArrayList<>();
        List<String> names = tree.children(child(path, "members"));
        if (names != null) {
            names.stream().sorted().forEach(n -> members.add(participant(child(path, "members"), n, -1)));
        }
        return new Recipe(path, "leader", leader, members, Map.of("mode", "unfair"));
    }

    private Recipe queue(String path, List<String> names) {
        List<Participant> items = new ArrayList<>();
        int claims = 0;
        int depth = 0;
        for (String n : names) {
            if (n.startsWith("item-") || n.startsWith("_c_") && n.contains("-item-")) {
                if (depth++ < 10 * MAX_PARTICIPANTS) {
                    items.add(participant(path, n, -1)); // the oldest is looked for among these (by czxid)
                }
            } else if (n.startsWith("claim-")) {
                claims++;
            }
        }
        items.sort(Comparator.comparingLong(Participant::czxid));
        Map<String, String> d = new TreeMap<>();
        d.put("depth", Integer.toString(depth));
        d.put("claimed", Integer.toString(claims));
        if (!items.isEmpty()) {
            d.put("oldestItemAgeMs", Long.toString(Math.max(0, now - items.get(0).ctime())));
        }
        List<String> ledgers = path.equals("/") ? null : tree.children(path + LEDGERS);
        if (ledgers != null) {
            d.put("producers", Integer.toString(ledgers.size()));
        }
        return new Recipe(path, "queue", items.size() > 20 ? List.copyOf(items.subList(0, 20)) : items, List.of(), d);
    }

    /** Ephemeral members with plain names: a double barrier when {@code ready} is there, else a group. */
    private Recipe members(String path, List<String> plain) {
        List<Participant> members = new ArrayList<>();
        boolean ready = false;
        for (String n : plain) {
            if (n.equals("ready")) {
                ready = true;
                continue;
            }
            Participant p = participant(path, n, -1);
            if (p.owner() != 0) {
                members.add(p);
            }
        }
        if (members.isEmpty() && !ready) {
            return null;
        }
        members.sort(Comparator.comparing(Participant::name));
        if (ready) {
            return new Recipe(path, "barrier", members, List.of(), Map.of("ready", "true",
                    "entered", Integer.toString(members.size())));
        }
        return new Recipe(path, "group", members, List.of(), Map.of("members", Integer.toString(members.size())));
    }

    private Participant participant(String parent, String name, long sequence) {
        NodeData d = tree.node(child(parent, name));
        if (d == null) {
            return new Participant(name, 0, sequence, "", 0, 0);
        }
        Stat s = d.stat();
        return new Participant(name, s.ephemeralOwner(), sequence, preview(d.data(), 256), s.ctime(), s.czxid());
    }

    /** The base of a sequential name ({@code lock-}, {@code lease-}; a semaphore's {@code lease-<n>-} as lease-). */
    private static String base(String prefix) {
        return prefix.startsWith("lease-") ? "lease-" : prefix;
    }

    static String child(String parent, String name) {
        return parent.equals("/") ? "/" + name : parent + "/" + name;
    }

    /** Up to {@code max} bytes of data as text (invalid UTF-8 replaced). */
    static String preview(byte[] data, int max) {
        if (data == null) {
            return "";
        }
        return new String(data, 0, Math.min(max, data.length), StandardCharsets.UTF_8);
    }

    /** A {@link Tree} over a server's tree (thread-safe reads). */
    static Tree of(dev.zkr.tree.DataTree t) {
        return new Tree() {
            @Override
            public List<String> children(String path) {
                Children c = t.getChildren(path);
                return c == null ? null : c.names();
            }

            @Override
            public NodeData node(String path) {
                return t.getData(path);
            }
        };
    }
}
