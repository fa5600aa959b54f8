package dev.zkr.cli.shell;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a shell line into words as a Unix shell does (JLine's parser keeps quote characters that stand inside a
 * word): blanks separate words; {@code '...'} quotes literally; {@code "..."} quotes with {@code \"} and
 * {@code \\} escapes; outside quotes a backslash escapes the next character. Quotes may stand anywhere in a word
 * ({@code /app/"my node"} is {@code /app/my node}); {@code ""} is an empty word. Pure.
 */
final class ShellWords {

    private ShellWords() {
    }

    /** The words of the line; an unterminated quote or a trailing backslash is an IllegalArgumentException. */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        int n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated ' quote");
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i++;
                while (true) {
                    if (i >= n) {
                        throw new IllegalArgumentException("unterminated \" quote");
                    }
                    char d = line.charAt(i);
                    if (d == '"') {
                        i++;
                        break;
                    }
                    if (d == '\\' && i + 1 < n && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                        word.append(line.charAt(i + 1));
                        i += 2;
                    } else {
                        word.append(d);
                        i++;
                    }
                }
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= n) {
                    throw new IllegalArgumentException("nothing to escape after the last \\");
                }
                word.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
