package dev.zkr.recipes;

import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tree cache's copy against a naive model (a sorted map from path to the node's czxid and data): after any
 * sequence of facts the copy holds exactly the model's nodes, children, Stats and data, and each fact's events are
 * the model's differences, deletions deepest first. The names include hash collisions ("Aa" and "BB") and enough
 * siblings to grow and shrink a child table; roots "/r" and "/".
 */
@ScaledTries(100)
class TreeStateProperties {

    private static final List<String> TOP_NAMES = Stream.concat(Stream.of("a", "Aa", "BB"),
            IntStream.range(0, 12).mapToObj(i -> "c" + i)).toList();
    private static final List<String> INNER_NAMES = List.of("a", "Aa", "BB");

    private enum Kind { CREATE, CHANGE, ABSENT, LIST }

    private record Fact(Kind kind, int node, Set<Integer> kept) {
    }

    @Provide
    Arbitrary<List<Fact>> facts() {
        Arbitrary<Fact> fact = Combinators.combine(
                Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 1000),
                Arbitraries.integers().between(0, 15).set().ofMaxSize(16)).as(Fact::new);
        return fact.list().ofMaxSize(120);
    }

    /** The model's node: the incarnation (czxid) and the data of its last version. */
    private record Held(long czxid, long mzxid, byte[] data) {
    }

    @Property
    void theCopyAgreesWithANaiveModel(@ForAll("facts") List<Fact> facts, @ForAll boolean slashRoot,
                                      @ForAll boolean bounded) {
        String root = slashRoot ? "/" : "/r";
        List<String> universe = universe(root);
        TreeState state = new TreeState(root, bounded ? 1 << 20 : Long.MAX_VALUE);
        TreeMap<String, Held> model = new TreeMap<>();
        long zxid = 0;
        for (Fact f : facts) {
            String path = universe.get(f.node() % universe.size());
            List<CacheEvent> events;
            List<String> expected = new ArrayList<>();
            switch (f.kind()) {
                case CREATE -> {
                    zxid++;
                    byte[] data = (path + "@" + zxid).getBytes(StandardCharsets.UTF_8);
                    events = state.present(path, node(zxid, zxid, data));
                    if (model.containsKey(path)) {
                        removeSubtree(model, path, expected);
                    }
                    if (path.equals(root) || model.containsKey(TreeState.parentOf(path))) {
                        model.put(path, new Held(zxid, zxid, data));
                        expected.add("CREATED " + path);
                    }
                }
                case CHANGE -> {
                    Held was = model.get(path);
                    if (was == null) {
                        continue;
                    }
                    zxid++;
                    byte[] data = (path + "@" + zxid).getBytes(StandardCharsets.UTF_8);
                    events = state.present(path, node(was.czxid(), zxid, data));
                    model.put(path, new Held(was.czxid(), zxid, data));
                    expected.add("CHANGED " + path);
                }
                case ABSENT -> {
                    events = state.absent(path);
                    if (model.containsKey(path)) {
                        removeSubtree(model, path, expected);
                    }
                }
                default -> {
                    List<String> names = namesUnder(path, universe).stream()
                            .filter(n -> f.kept().contains(Math.abs(n.hashCode()) % 16)).toList();
                    events = state.children(path, names);
                    if (model.containsKey(path)) {
                        for (String child : childrenIn(model, path)) {
                            if (!names.contains(child)) {
                                removeSubtree(model, TreeState.childPath(path, child), expected);
                            }
                        }
                    }
                }
            }
            assertEquals(expected, events.stream().map(e -> e.type() + " " + e.path()).toList(), f.toString());
            agree(state, model, universe);
        }
    }

    private static void agree(TreeState state, TreeMap<String, Held> model, List<String> universe) {
        assertEquals(model.size(), state.size());
        for (String path : universe) {
            Held held = model.get(path);
            assertEquals(held != null, state.stat(path).isPresent(), path);
            assertEquals(childrenIn(model, path), state.childrenOf(path), path);
            if (held != null) {
                Stat stat = state.stat(path).orElseThrow();
                assertEquals(List.of(held.czxid(), held.mzxid()), List.of(stat.czxid(), stat.mzxid()), path);
                assertArrayEquals(held.data(), state.local(path).orElseThrow().data(), path);
            }
        }
        long bytes = model.values().stream().mapToLong(h -> h.data().length).sum();
        assertEquals(bytes, state.dataBytes());
    }

    /** Removes the subtree from the model, expecting DELETED for each node, deepest first (siblings by name). */
    private static void removeSubtree(TreeMap<String, Held> model, String path, List<String> expected) {
        for (String child : childrenIn(model, path)) {
            removeSubtree(model, TreeState.childPath(path, child), expected);
        }
        model.remove(path);
        expected.add("DELETED " + path);
    }

    /** The model's child names of path, sorted. */
    private static List<String> childrenIn(Map<String, Held> model, String path) {
        List<String> out = new ArrayList<>();
        for (String p : model.keySet()) {
            if (!p.equals(path) && p.length() > 1 && TreeState.parentOf(p).equals(path)) {
                out.add(p.substring(p.lastIndexOf('/') + 1));
            }
        }
        out.sort(null);
        return out;
    }

    /** The names the universe has under path. */
    private static List<String> namesUnder(String path, List<String> universe) {
        List<String> out = new ArrayList<>();
        for (String p : universe) {
            if (p.length() > 1 && !p.equals(path) && TreeState.parentOf(p).equals(path)) {
                out.add(p.substring(p.lastIndexOf('/') + 1));
            }
        }
        return out;
    }

    /** The root, 15 names below it, 3 below each of three of them, one below "a/a". */
    private static List<String> universe(String root) {
        Set<String> out = new HashSet<>();
        out.add(root);
        for (String top : TOP_NAMES) {
            String p = TreeState.childPath(root, top);
            out.add(p);
            if (INNER_NAMES.contains(top)) {
                for (String inner : INNER_NAMES) {
                    out.add(TreeState.childPath(p, inner));
                }
            }
        }
        out.add(TreeState.childPath(TreeState.childPath(TreeState.childPath(root, "a"), "a"), "x"));
        return out.stream().sorted().toList();
    }

    private static NodeData node(long czxid, long mzxid, byte[] data) {
        return new NodeData(data, new Stat(czxid, mzxid, czxid, 0, 0, (int) (mzxid - czxid), 0, 0, 0,
                data.length, 0));
    }
}
