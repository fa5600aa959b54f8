package dev.zkr.cli.shell;

import dev.zkr.cli.Session;
import dev.zkr.client.ZkException;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;

import java.util.List;

/**
 * Tab completion in the shell: command names for the first word, znode paths (the children of the typed prefix,
 * read from the server) for words starting with {@code /}.
 */
final class ZkrCompleter implements Completer {

    private final List<String> commands;
    private final Session session;

    ZkrCompleter(List<String> commands, Session session) {
        this.commands = commands;
        this.session = session;
    }

    @Override
    public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
        String word = line.word().substring(0, Math.min(line.wordCursor(), line.word().length()));
        if (line.wordIndex() == 0) {
            for (String c : commands) {
                candidates.add(new Candidate(c));
            }
        } else if (word.startsWith("/")) {
            for (String path : PathCompletion.complete(word, children(PathCompletion.parent(word)))) {
                // not "complete": the user may go on with '/' into the node's children
                candidates.add(new Candidate(path, path, null, null, null, null, false));
            }
        }
    }

    private List<String> children(String parent) {
        try {
            return session.client().getChildren(parent);
        } catch (ZkException | IllegalArgumentException e) {
            return List.of(); // no such node, or no connection: nothing to offer
        }
    }
}
