package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

/** Which recipe library runs in which column. */
final class RecipeBackends {

    private RecipeBackends() {
    }

    /** The session factory of the column, or null when its code is not available. */
    static RecipeSession.Factory factory(Column column) {
        return switch (column) {
            case ZOOKEEPER -> CuratorSession::open;
            case ZKR, ZKR_ON_ZOOKEEPER -> null;
        };
    }

    static String unavailableReason(Column column) {
        return "zkr recipes not built yet";
    }
}
