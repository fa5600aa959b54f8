package dev.zkr.cli;

import java.io.PrintWriter;
import java.util.List;

/**
 * Where and how a command prints: text lines for people, or one JSON document per result ({@code --json}) for
 * scripts, on the command line's stdout; node data in the format asked for ({@code --hex}, {@code --base64}).
 * Errors never go through here: they are one line on stderr, printed by {@link Zkr}.
 */
public final class Output {

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final DataFormat format;

    public Output(PrintWriter out, PrintWriter err, boolean json, DataFormat format) {
        this.out = out;
        this.err = err;
        this.json = json;
        this.format = format;
    }

    public boolean json() {
        return json;
    }

    /** How node data is shown and typed in. */
    public DataFormat format() {
        return format;
    }

    /** Prints the result: its JSON form with {@code --json}, else its text lines. */
    public void result(Object jsonValue, List<String> text) {
        if (json) {
            out.println(Json.write(jsonValue));
        } else {
            text.forEach(out::println);
        }
        out.flush();
    }

    /** Prints one text line (text mode), or nothing with {@code --json}. */
    public void text(String line) {
        if (!json) {
            out.println(line);
            out.flush();
        }
    }

    /** A note for a person on stderr (e.g. "watching ..."), in text mode only. */
    public void note(String line) {
        if (!json) {
            err.println(line);
            err.flush();
        }
    }

    PrintWriter out() {
        return out;
    }
}
