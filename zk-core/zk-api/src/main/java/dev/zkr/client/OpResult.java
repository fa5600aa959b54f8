package dev.zkr.client;

/** The per-operation result of a {@link ZkClient#multi} transaction or a {@link ZkClient#multiRead}. */
public sealed interface OpResult {

    /** Result of {@link Op.Create}: the actual path and the new node's Stat. */
    record CreateResult(String path, Stat stat) implements OpResult {
    }

    /** Result of {@link Op.Delete}. */
    record DeleteResult() implements OpResult {
    }

    /** Result of {@link Op.SetData}: the node's new Stat. */
    record SetDataResult(Stat stat) implements OpResult {
    }

    /** Result of {@link Op.Check}. */
    record CheckResult() implements OpResult {
    }

    /**
     * Result of every operation of a failed multi: the failing operation carries its error code, the operations
     * before it {@link ZkException.Code#OK} and the ones after it {@link ZkException.Code#RUNTIME_INCONSISTENCY},
     * as in ZooKeeper.
     */
    record ErrorResult(ZkException.Code code) implements OpResult {
    }

    /** Result of {@link Op.GetData} in a multiRead: the node's data and Stat. */
    record GetDataResult(byte[] data, Stat stat) implements OpResult {
    }

    /** Result of {@link Op.GetChildren} in a multiRead: the child names (unordered, as ZooKeeper returns them). */
    record GetChildrenResult(java.util.List<String> children) implements OpResult {
        public GetChildrenResult {
            children = children == null ? java.util.List.of() : java.util.List.copyOf(children);
        }
    }
}
