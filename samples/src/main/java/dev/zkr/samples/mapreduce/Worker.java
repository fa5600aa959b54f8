package dev.zkr.samples.mapreduce;

import dev.zkr.client.NodeData;
import dev.zkr.client.Watcher;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.DistributedCounter;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.GroupMembership;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.QueueSerializer;
import dev.zkr.recipes.Recipes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A worker: joins the group, then for each phase takes tasks from the phase's acknowledged queue until every task
 * of the phase is done (a task whose worker died comes back to the queue when that worker's session expires). It
 * meets the other workers at the shuffle double barrier: {@code enter} after map (no one shuffles before every
 * worker has finished mapping), {@code leave} after shuffle (no one reduces before every worker is done shuffling;
 * a worker that died counts as left). A finished reduce partition is committed into the job's output directory
 * under the commit lock ({@link OutputCommitter}) before its done marker is created.
 */
final class Worker implements Runnable {

    static final QueueSerializer<String> TEXT = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return Nodes.utf8(item);
        }

        @Override
        public String deserialize(byte[] data) {
            return Nodes.string(data);
        }
    };

    private final String id;
    private final ZkClient client;
    private final Layout layout;
    private final Cluster cluster;
    private final Faults faults;
    private final Console console;
    private final Recipes recipes;
    private final List<Throwable> failures;
    private final OutputCommitter committer;
    private final Object waitLock = new Object();
    private boolean waitingAtBarrier; // guarded by waitLock
    private volatile Thread thread;
    private JobSpec job;

    Worker(String id, ZkClient client, Layout layout, Path outputDir, Cluster cluster, Faults faults,
           Console console, List<Throwable> failures) {
        this.id = id;
        this.client = client;
        this.layout = layout;
        this.cluster = cluster;
        this.faults = faults;
        this.console = console;
        this.failures = failures;
        this.recipes = Recipes.using(client);
        this.committer = new OutputCommitter(recipes.lock(layout.commitLock()), outputDir, id);
    }

    String id() {
        return id;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        GroupMembership group = null;
        DoubleBarrier barrier = null;
        try {
            group = recipes.group(layout.workers()).memberId(id).rejoinAfterLost(false).join();
            awaitPhase(Phase.MAP);
            job = JobSpec.read(client, layout);
            drain(Phase.MAP);
            barrier = enterBarrier();
            drain(Phase.SHUFFLE);
            if (barrier != null) {
                barrier.leave();
            }
            drain(Phase.REDUCE);
            awaitPhase(Phase.DONE);
        } catch (Killed k) {
            return; // crashed: no cleanup, the session is gone
        } catch (OutputCommitter.Fenced e) {
            // the fence did its job: the task comes back to the queue with our claim, someone else commits it
            console.event("! %s: %s", id, e.getMessage());
        } catch (RuntimeException e) {
            failures.add(e);
            console.event("! %s failed: %s", id, e);
        }
        if (barrier != null) {
            barrier.close();
        }
        if (group != null) {
            group.close();
        }
        client.close();
    }

    /** Takes the phase's tasks until all of them are done (by anyone). */
    private void drain(Phase phase) {
        awaitPhase(phase);
        int tasks = job.tasks(phase);
        AcknowledgedQueue<String> queue = recipes.queue(layout.queue(phase)).serializer(TEXT).buildAcknowledged();
        DistributedCounter claimed = recipes.counter(layout.counter(phase, "claimed"));
        DistributedCounter done = recipes.counter(layout.counter(phase, "done"));
        try {
            while (Nodes.childCount(client, layout.done(phase)) < tasks) {
                Optional<QueueItem<String>> next = queue.poll(Duration.ofMillis(200));
                if (next.isEmpty()) {
                    continue;
                }
                QueueItem<String> item = next.get();
                claimed.incrementAndGet();
                if (faults.killWorkerOnClaim(phase, tasks)) {
                    die("in the middle of " + phase.label() + ", holding task " + item.value());
                }
                boolean first = process(phase, item.value());
                item.ack();
                if (first) {
                    done.incrementAndGet();
                }
            }
        } catch (Killed k) {
            throw k;
        } catch (RuntimeException e) {
            queue.close();
            throw e;
        }
        queue.close();
    }

    /** Runs one task; true if this worker was the first to finish it (false for a task already done). */
    private boolean process(Phase phase, String task) {
        int i = Layout.taskIndex(task);
        switch (phase) {
            case MAP -> {
                String text = Nodes.string(Nodes.readBlob(client, layout.input(i)));
                List<TreeMap<String, Long>> parts = new ArrayList<>();
                for (int p = 0; p < job.reducers(); p++) {
                    parts.add(new TreeMap<>());
                }
                Corpus.words(text, w -> parts.get(Runs.partition(w, job.reducers())).merge(w, 1L, Long::sum));
                for (int p = 0; p < job.reducers(); p++) {
                    Nodes.writeBlob(client, layout.mapOut(i, p), Runs.encode(parts.get(p)));
                }
            }
            case SHUFFLE -> {
                List<List<Runs.Entry>> runs = new ArrayList<>();
                for (int m = 0; m < job.mapTasks(); m++) {
                    runs.add(Runs.decode(Nodes.readBlob(client, layout.mapOut(m, i))));
                }
                Nodes.writeBlob(client, layout.shuffleOut(i), Runs.encode(Runs.merge(runs)));
            }
            case REDUCE -> {
                List<Runs.Entry> sums = Runs.sum(Runs.decode(Nodes.readBlob(client, layout.shuffleOut(i))));
                byte[] out = Runs.encode(sums);
                Nodes.writeBlob(client, layout.reduceOut(i), out);
                long words = sums.stream().mapToLong(Runs.Entry::count).sum();
                committer.commit(i, out, words, sums.size(), token -> {
                    faults.insideCommit(id, token);
                    if (faults.killWorkerInCommit(job.reducers())) {
                        die("in the middle of reduce, holding task " + task + " and the commit lock (fencing token "
                                + token + ")");
                    }
                });
            }
            default -> throw new IllegalArgumentException("no tasks in phase " + phase);
        }
        String marker = layout.doneMarker(phase, task);
        // first to finish: our create made it, or it was ours and only its answer was lost (a server failover)
        return Nodes.createIfAbsent(client, marker, Nodes.utf8(id)) || id.equals(Nodes.readOrNull(client, marker));
    }

    /**
     * Enters the shuffle barrier of the master's current attempt, with the attempt's parties. If the master
     * re-forms the barrier (a party died before arriving) or the phase moves on while we wait, the wait is
     * interrupted and we look again. Returns the barrier to leave, or null if there is nothing to meet for.
     */
    private DoubleBarrier enterBarrier() {
        awaitPhase(Phase.SHUFFLE);
        Watcher wakeMe = e -> interruptIfWaiting();
        while (true) {
            NodeData specNode = Nodes.retrying(() -> client.getData(layout.barrierSpec(), wakeMe));
            Phase now = Phase.valueOf(Nodes.string(
                    Nodes.retrying(() -> client.getData(layout.state(), wakeMe)).data()));
            BarrierSpec spec = BarrierSpec.decode(specNode.data());
            if (now.compareTo(Phase.SHUFFLE) > 0 || !spec.members().contains(id)) {
                return null; // shuffle is over already, or we were not counted as a party
            }
            if (faults.killWorkerAtBarrier()) {
                die("on its way into the shuffle barrier (counted as a party, never arrived)");
            }
            faults.beforeBarrier(id);
            DoubleBarrier barrier = recipes.doubleBarrier(layout.barrier(spec.attempt()))
                    .parties(spec.members().size()).memberId(id).build();
            setWaiting(true);
            try {
                int version = Nodes.retrying(() -> client.exists(layout.barrierSpec())).version();
                if (version != specNode.stat().version()) {
                    continue; // changed before our watch could interrupt us
                }
                barrier.enter();
                return barrier;
            } catch (ZkException.Interrupted e) {
                setWaiting(false);
                if (Nodes.retrying(() -> client.exists(layout.barrier(spec.attempt()) + "/ready")) != null) {
                    return barrier; // it opened just as the master re-formed it: we are through
                }
            } finally {
                setWaiting(false);
            }
        }
    }

    private void setWaiting(boolean waiting) {
        synchronized (waitLock) {
            waitingAtBarrier = waiting;
            if (!waiting) {
                Thread.interrupted(); // a wake-up that came too late is dropped here
            }
        }
    }

    private void interruptIfWaiting() {
        synchronized (waitLock) {
            Thread t = thread;
            if (waitingAtBarrier && t != null) {
                t.interrupt();
            }
        }
    }

    /** Waits until the master has moved the job to {@code phase} or beyond. */
    private void awaitPhase(Phase phase) {
        Semaphore wake = new Semaphore(0);
        Watcher watcher = e -> wake.release();
        while (true) {
            String state;
            try {
                state = Nodes.string(Nodes.retrying(() -> client.getData(layout.state(), watcher)).data());
            } catch (ZkException.NoNode e) {
                boolean exists = Nodes.retrying(() -> client.exists(layout.state(), watcher)) != null;
                state = exists ? Phase.SPLIT.name() : null;
            }
            if (state != null && Phase.valueOf(state).compareTo(phase) >= 0) {
                return;
            }
            try {
                wake.tryAcquire(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ZkException.Interrupted(layout.state(), "interrupted");
            }
        }
    }

    private void die(String how) {
        console.event("! %s killed %s", id, how);
        cluster.crash(client);
        throw new Killed(id);
    }
}
