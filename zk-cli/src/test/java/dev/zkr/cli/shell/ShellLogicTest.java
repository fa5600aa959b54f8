package dev.zkr.cli.shell;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The shell's pure parts: path completion, the history file's location, words of a line. */
class ShellLogicTest {

    @Test
    void completionListsTheChildrenOfThePrefixParent() {
        assertEquals("/", PathCompletion.parent("/"));
        assertEquals("/", PathCompletion.parent("/ap"));
        assertEquals("/app", PathCompletion.parent("/app/"));
        assertEquals("/app", PathCompletion.parent("/app/lo"));
        assertEquals("lo", PathCompletion.namePrefix("/app/lo"));
        assertEquals(List.of("/app", "/apple"), PathCompletion.complete("/ap", List.of("zookeeper", "apple", "app")));
        assertEquals(List.of("/app/locks", "/app/log"),
                PathCompletion.complete("/app/lo", List.of("log", "leader", "locks")));
        assertEquals(List.of("/app/a b", "/app/c"), PathCompletion.complete("/app/", List.of("c", "a b")));
        assertEquals(List.of("/x"), PathCompletion.complete("/", List.of("x")));
    }

    @Test
    void historyFileOptionThenEnvironmentThenHome() {
        assertEquals(Path.of("/tmp/h"), HistoryFile.resolve(Path.of("/tmp/h"), "/env/h", "/home/u"));
        assertEquals(Path.of("/env/h"), HistoryFile.resolve(null, "/env/h", "/home/u"));
        assertEquals(Path.of("/home/u/.zkr_history"), HistoryFile.resolve(null, " ", "/home/u"));
        assertEquals(Path.of("/home/u/.zkr_history"), HistoryFile.resolve(null, null, "/home/u"));
    }

    @Test
    void wordsSplitAsInAUnixShell() {
        assertEquals(List.of("ls", "/"), ShellWords.split("  ls   / "));
        assertEquals(List.of("create", "/app/my node", "some data"), ShellWords.split("create /app/\"my node\" 'some data'"));
        assertEquals(List.of("get", "/a b"), ShellWords.split("get /a\\ b"));
        assertEquals(List.of("set", "/a", ""), ShellWords.split("set /a \"\""));
        assertEquals(List.of("set", "/a", "say \"hi\" \\o/"), ShellWords.split("set /a \"say \\\"hi\\\" \\\\o/\""));
        assertEquals(List.of("set", "/a", "it's"), ShellWords.split("set /a 'it'\\''s'"));
        assertEquals(List.of("x", "$HOME"), ShellWords.split("x '$HOME'"));
        assertEquals(List.of(), ShellWords.split("   "));
        assertThrows(IllegalArgumentException.class, () -> ShellWords.split("get '/a"));
        assertThrows(IllegalArgumentException.class, () -> ShellWords.split("get \"/a"));
        assertThrows(IllegalArgumentException.class, () -> ShellWords.split("get /a\\"));
    }
}
