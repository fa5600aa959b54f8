package dev.zkr.bench;

import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * One session (one client, one connection) of a recipe library: Curator on ZooKeeper, or zkr recipes on the native
 * client or on {@code ApacheZkClient}. Only what the recipe scenarios need; every blocking call has a deadline.
 */
interface RecipeSession extends AutoCloseable {

    Duration TIMEOUT = Duration.ofSeconds(30);

    /** How long a cache may take to initialise (100,000 nodes on a loaded machine take more than TIMEOUT). */
    Duration CACHE_START = Duration.ofMinutes(3);

    /** Something held that is given back by {@link #release()}. */
    interface Held {
        void release() throws Exception;
    }

    /** A lock that can be acquired repeatedly. */
    interface Lock {
        Held acquire() throws Exception;
    }

    /** A started election participant; {@code onElected} runs when it becomes leader. */
    interface Participant {
        void close() throws Exception;
    }

    /** A term of a leader selector, running until {@link #end()}. */
    interface Term {
        void end();
    }

    /** A double barrier for one round. */
    interface Barrier {
        void enter() throws Exception;

        void leave() throws Exception;
    }

    interface Counter {
        long increment() throws Exception;
    }

    interface Queue {
        void offer(byte[] item) throws Exception;

        /** The next item, or null after the timeout. */
        byte[] poll(Duration timeout) throws Exception;
    }

    /**
     * A started, initialised watch-maintained copy of a subtree. {@code onData} is called with the path and the data
     * of every node the copy creates or changes, on the library's listener thread.
     */
    interface Cache {
        /** How many nodes the copy holds (the root included). */
        int size();

        void close();
    }

    Lock mutex(String path);

    /** A counting semaphore of {@code permits} permits; each acquire takes one. */
    Lock semaphore(String path, int permits);

    /**
     * Starts a tree cache of the subtree at {@code path} and returns once it is initialised (Curator: within
     * {@link #CACHE_START}; zkr's {@code start()} waits by itself until the copy is initialised).
     */
    Cache treeCache(String path, BiConsumer<String, byte[]> onData) throws Exception;

    /** Blocking setData at any version, through this session's client. */
    void setData(String path, byte[] data) throws Exception;

    Lock readLock(String path);

    Lock writeLock(String path);

    /**
     * Queues one waiter for the lock at {@code path}; once it holds, {@code onHeld} runs and the lock is released;
     * the future completes after the release. zkr: {@code acquireAsync()}, which holds no thread while it waits.
     * Curator has no asynchronous acquire (CURATOR-459, open): each waiter is a thread of its own, blocked in
     * {@code InterProcessMutex.acquire}.
     */
    java.util.concurrent.CompletableFuture<Void> queueWaiter(String path, Runnable onHeld);

    /** How many children {@code path} has, read through this session's client. */
    int childCount(String path) throws Exception;

    Participant join(String path, String id, Runnable onElected) throws Exception;

    /**
     * Starts a leader selector (fair, auto requeue): each time it leads, {@code onTerm} gets the term, whose callback
     * runs until the term is ended.
     */
    Participant selector(String path, String id, java.util.function.Consumer<Term> onTerm) throws Exception;

    /** A service instance registered through service discovery (DYNAMIC), until {@link #unregister()}. */
    interface Registration {
        void unregister() throws Exception;
    }

    /**
     * Registers instance {@code id} of service {@code name} under {@code basePath} through the contender's service
     * discovery (zkr's {@code ServiceDiscovery}, Curator's curator-x-discovery); may return before the node is made.
     */
    Registration register(String basePath, String name, String id) throws Exception;

    /**
     * Starts a service cache of service {@code name} under {@code basePath}; {@code onChange} gets the ids it holds
     * after each change it reports. Returns once the cache is initialised.
     */
    Cache serviceCache(String basePath, String name, java.util.function.Consumer<java.util.Set<String>> onChange)
            throws Exception;

    Barrier doubleBarrier(String path, int parties, String memberId);

    Counter counter(String path);

    Queue queue(String path);

    /**
     * A priority queue (lowest number first): {@link Queue#offer} gives items the priorities 0 to 9 in turn; the
     * items of one priority are taken first while any are queued.
     */
    Queue priorityQueue(String path);

    @Override
    void close();

    /** Opens sessions of one recipe library on one server. */
    interface Factory {
        RecipeSession open(String connectString) throws Exception;
    }
}
