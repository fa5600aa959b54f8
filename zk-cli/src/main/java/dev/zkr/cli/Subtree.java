package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.List;

/**
 * A subtree read with one {@code getChildren} per node, children sorted by name. Nodes deleted while it is read are
 * left out (the root must exist).
 *
 * @param path     the node's path
 * @param children its children, sorted by name ({@code depth} cut: empty)
 */
record Subtree(String path, List<Subtree> children) {

    /** Reads the subtree at {@code path} down to {@code depth} levels below it (-1: all). */
    static Subtree read(ZkClient client, String path, int depth) {
        return readOrNull(client, path, depth, true);
    }

    private static Subtree readOrNull(ZkClient client, String path, int depth, boolean root) {
        List<String> names;
        try {
            names = depth == 0 ? List.of() : new ArrayList<>(client.getChildren(path));
        } catch (ZkException.NoNode e) {
            if (root) {
                throw e;
            }
            return null;
        }
        names = names.stream().sorted().toList();
        List<Subtree> children = new ArrayList<>(names.size());
        for (String name : names) {
            Subtree child = readOrNull(client, ZkPaths.join(path, name), depth < 0 ? -1 : depth - 1, false);
            if (child != null) {
                children.add(child);
            }
        }
        return new Subtree(path, children);
    }

    /** The node's name ({@code /} for the root). */
    String name() {
        return "/".equals(path) ? "/" : ZkPaths.name(path);
    }

    /** Every path of the subtree, this one first, depth first in name order. */
    List<String> paths() {
        List<String> out = new ArrayList<>();
        collect(out);
        return out;
    }

    private void collect(List<String> out) {
        out.add(path);
        children.forEach(c -> c.collect(out));
    }

    /** The subtree as an indented tree, like {@code tree(1)}. */
    List<String> drawing() {
        List<String> lines = new ArrayList<>();
        lines.add(path);
        draw(lines, "");
        return lines;
    }

    private void draw(List<String> lines, String indent) {
        for (int i = 0; i < children.size(); i++) {
            boolean last = i == children.size() - 1;
            Subtree c = children.get(i);
            lines.add(indent + (last ? "└── " : "├── ") + c.name());
            c.draw(lines, indent + (last ? "    " : "│   "));
        }
    }
}
