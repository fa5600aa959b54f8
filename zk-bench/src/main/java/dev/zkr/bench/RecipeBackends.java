package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

/** Which recipe library runs in which column. */
final class RecipeBackends {

    private RecipeBackends() {
    }

    /** The session factory of the column. */
    static RecipeSession.Factory factory(Column column) {
        return switch (column) {
            case ZKR -> ZkrRecipeSession::openNative;
            case ZOOKEEPER -> CuratorSession::open;
            case ZKR_ON_ZOOKEEPER -> ZkrRecipeSession::openOnZooKeeper;
        };
    }
}
