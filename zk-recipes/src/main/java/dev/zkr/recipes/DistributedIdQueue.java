package dev.zkr.recipes;

/**
 * A FIFO {@link DistributedQueue} whose items carry an id (in their node name), so queued items can be removed by
 * id. Obtain one from {@code recipes.queue(path).ids()}.
 */
public interface DistributedIdQueue<T> extends DistributedQueue<T> {

    /**
     * Adds an item with this id (several items may share one), exactly once, as {@link #offer(Object)}.
     *
     * @throws IllegalArgumentException if the id is null, empty or longer than 256 UTF-8 bytes
     */
    void offer(String id, T item);

    /**
     * Removes the queued items with this id; returns how many this call removed. Each removal is one atomic
     * request, so an item goes either to a consumer or to this removal, never both. After a lost response the
     * queue is listed again: an item that the lost request removed is not counted.
     *
     * @throws IllegalArgumentException if the id is null, empty or longer than 256 UTF-8 bytes
     */
    int remove(String id);
}
