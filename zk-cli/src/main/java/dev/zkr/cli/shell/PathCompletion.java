package dev.zkr.cli.shell;

import java.util.List;

/**
 * Which znode paths complete a typed prefix: the children of the prefix's parent whose names start with what
 * follows its last {@code /}. {@code /ap} completes among the children of {@code /}, {@code /app/} and
 * {@code /app/lo} among those of {@code /app}. Pure.
 */
final class PathCompletion {

    private PathCompletion() {
    }

    /** The node whose children complete the typed prefix (which starts with {@code /}). */
    static String parent(String typed) {
        int slash = typed.lastIndexOf('/');
        return slash <= 0 ? "/" : typed.substring(0, slash);
    }

    /** The part of the last name typed so far. */
    static String namePrefix(String typed) {
        return typed.substring(typed.lastIndexOf('/') + 1);
    }

    /** The full paths, sorted, of the parent's children that match the typed prefix. */
    static List<String> complete(String typed, List<String> children) {
        String parent = parent(typed);
        String prefix = namePrefix(typed);
        String base = "/".equals(parent) ? "/" : parent + "/";
        return children.stream().filter(c -> c.startsWith(prefix)).sorted().map(c -> base + c).toList();
    }
}
