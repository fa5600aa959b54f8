package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The queue checks, pure: {@code enqueue} operations (arg: a unique item), {@code dequeue} operations (OK: the item
 * was delivered and acknowledged; result {@code item} or {@code item@node}; INFO with a result: its ack may or may
 * not have been applied), and the items drained from the queue
 * after healing (same form). Every acknowledged enqueue must be delivered at least once (acknowledged by a
 * consumer, or still in the queue), nothing delivered that was never enqueued or whose enqueue definitely failed.
 * An item delivered more than once is counted; with {@code offerExactlyOnce} (the recipe promises that an offer is
 * applied once even if its response was lost) one item found in two different queue nodes is an anomaly.
 */
final class QueueCheck {

    /** The anomalies found and the counts worth reporting. */
    record Outcome(List<String> anomalies, List<String> facts) {
    }

    private QueueCheck() {
    }

    static Outcome check(String name, List<Op> ops, List<String> drained, boolean offerExactlyOnce) {
        Map<String, Op> enqueues = new HashMap<>();
        long ok = 0;
        long failed = 0;
        long info = 0;
        for (Op op : ops) {
            if (op.f().equals("enqueue")) {
                enqueues.put(op.arg(), op);
                switch (op.status()) {
                    case OK -> ok++;
                    case FAIL -> failed++;
                    case INFO -> info++;
                }
            }
        }
        List<String> anomalies = new ArrayList<>();
        Map<String, Integer> deliveries = new HashMap<>();
        Map<String, Set<String>> nodes = new HashMap<>();
        List<String> delivered = new ArrayList<>();
        Set<String> maybeDelivered = new HashSet<>();
        for (Op op : ops) {
            if (op.f().equals("dequeue") && op.ok()) {
                delivered.add(op.result());
            } else if (op.f().equals("dequeue") && op.indeterminate() && op.result() != null) {
                int at = op.result().indexOf('@');
                maybeDelivered.add(at < 0 ? op.result() : op.result().substring(0, at)); // its ack may have applied
            }
        }
        long acknowledged = delivered.size();
        delivered.addAll(drained);
        for (String d : delivered) {
            int at = d.indexOf('@');
            String item = at < 0 ? d : d.substring(0, at);
            deliveries.merge(item, 1, Integer::sum);
            if (at >= 0) {
                nodes.computeIfAbsent(item, k -> new TreeSet<>()).add(d.substring(at + 1));
            }
        }
        for (Map.Entry<String, Integer> e : deliveries.entrySet()) {
            Op enqueue = enqueues.get(e.getKey());
            if (enqueue == null) {
                anomalies.add(name + ": item " + e.getKey() + " delivered but never enqueued");
            } else if (enqueue.failed()) {
                anomalies.add(name + ": item " + e.getKey() + " delivered although its enqueue failed: " + enqueue);
            }
        }
        for (Op enqueue : enqueues.values()) {
            if (enqueue.ok() && !deliveries.containsKey(enqueue.arg()) && !maybeDelivered.contains(enqueue.arg())) {
                anomalies.add(name + ": acknowledged item " + enqueue.arg() + " lost (never delivered, not in the "
                        + "queue after healing)");
            }
        }
        long duplicated = 0;
        long extra = 0;
        for (int n : deliveries.values()) {
            if (n > 1) {
                duplicated++;
                extra += n - 1;
            }
        }
        Set<String> twice = new TreeSet<>();
        for (Map.Entry<String, Set<String>> e : nodes.entrySet()) {
            if (e.getValue().size() > 1) {
                twice.add(e.getKey() + " in " + e.getValue());
            }
        }
        if (offerExactlyOnce) {
            for (String t : twice) {
                anomalies.add(name + ": item offered once but enqueued twice (applied twice): " + t);
            }
        }
        Set<String> unknownOutcome = new HashSet<>();
        for (Op enqueue : enqueues.values()) {
            if (enqueue.indeterminate() && deliveries.containsKey(enqueue.arg())) {
                unknownOutcome.add(enqueue.arg());
            }
        }
        List<String> facts = List.of(
                String.format("%s: enqueues %d ok, %d failed, %d indeterminate (%d of those delivered)", name, ok,
                        failed, info, unknownOutcome.size()),
                String.format("%s: %d deliveries acknowledged by consumers, %d drained after healing", name,
                        acknowledged, drained.size()),
                String.format("%s: %d items delivered more than once (%d extra deliveries), %d items in two queue nodes",
                        name, duplicated, extra, twice.size()));
        return new Outcome(anomalies, facts);
    }
}
