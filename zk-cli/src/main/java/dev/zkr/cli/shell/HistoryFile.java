package dev.zkr.cli.shell;

import java.nio.file.Path;

/**
 * Where the shell keeps its history: {@code --history FILE} if given, else {@code $ZKR_HISTORY}, else
 * {@code ~/.zkr_history}. Pure.
 */
final class HistoryFile {

    static final String DEFAULT_NAME = ".zkr_history";

    private HistoryFile() {
    }

    static Path resolve(Path option, String env, String userHome) {
        if (option != null) {
            return option;
        }
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(userHome, DEFAULT_NAME);
    }
}
