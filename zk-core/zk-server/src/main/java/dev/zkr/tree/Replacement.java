package dev.zkr.tree;

import java.util.List;

/**
 * What {@link DataTree#replaceWith} changed, for the server to catch up with it: the watch triggers that turn the
 * old tree into the new one (for {@link WatchTable#trigger}, so a client watching a node that the installed snapshot
 * changed hears of it as if the txns had been applied) and the committed sessions that appeared and went away (for
 * the session table).
 *
 * @param triggers        deletions (deepest first), creations (parents first), data changes, child-list changes;
 *                        each with the new tree's zxid
 * @param sessionsAdded   sessions in the new tree only, or with another timeout or password
 * @param sessionsRemoved ids of sessions in the old tree only
 */
public record Replacement(List<WatchTrigger> triggers, List<SessionInfo> sessionsAdded, List<Long> sessionsRemoved) {
    public Replacement {
        triggers = List.copyOf(triggers);
        sessionsAdded = List.copyOf(sessionsAdded);
        sessionsRemoved = List.copyOf(sessionsRemoved);
    }
}
