package dev.zkr.recipes;

/**
 * A FIFO {@link AcknowledgedQueue} whose items carry an id, so queued items can be removed by id; an item a consumer
 * holds (claimed, not yet acknowledged) is not removed. Obtain one from
 * {@code recipes.queue(path).ids().buildAcknowledged()}.
 */
public interface AcknowledgedIdQueue<T> extends AcknowledgedQueue<T> {

    /**
     * Adds an item with this id (several items may share one), exactly once, as {@link #offer(Object)}.
     *
     * @throws IllegalArgumentException if the id is null, empty or longer than 256 UTF-8 bytes
     */
    void offer(String id, T item);

    /**
     * Removes the queued items with this id that no consumer holds; returns how many this call removed. Each
     * removal is one atomic request (it creates the item's claim, deletes the item and the claim), so an item is
     * either claimed by a consumer or removed here, never both. After a lost response the queue is listed again:
     * an item that the lost request removed is not counted.
     *
     * @throws IllegalArgumentException if the id is null, empty or longer than 256 UTF-8 bytes
     */
    int remove(String id);
}
