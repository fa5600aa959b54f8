package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.List;

/** jqwik generators of request sequences over a small path universe (so ops collide often). */
final class OpGen {
    static final int MAX_DATA = 8;

    /**
     * One step: a request from a session (null request = run container and TTL cleanup); flush = apply everything.
     */
    record Step(Request request, long session, boolean flush) {
        @Override
        public String toString() {
            return (request == null ? "CLEANUP" : describe(request)) + " by " + session + (flush ? " ; flush" : "");
        }
    }

    static String describe(Request r) {
        if (r instanceof Request.Create c) {
            return "create(" + c.path() + ", " + c.mode() + ", " + c.data().length + "B"
                    + (c.ttlMs() != -1 ? ", ttl " + c.ttlMs() : "") + ")";
        } else if (r instanceof Request.SetData s) {
            return "setData(" + s.path() + ", " + s.data().length + "B, v" + s.version() + ")";
        } else if (r instanceof Request.Multi m) {
            return "multi" + m.ops().stream().map(OpGen::describe).toList();
        }
        return r.toString();
    }

    private static final List<String> PATHS = new ArrayList<>();

    static {
        for (String a : List.of("a", "b")) {
            PATHS.add("/" + a);
            for (String b : List.of("a", "b")) {
                PATHS.add("/" + a + "/" + b);
                for (String c : List.of("a", "b")) {
                    PATHS.add("/" + a + "/" + b + "/" + c);
                }
            }
        }
        for (String parent : List.of("/", "/a", "/a/b")) {
            for (int i = 0; i < 4; i++) {
                PATHS.add((parent.equals("/") ? "" : parent) + "/s" + dev.zkr.client.ZkPaths.sequenceSuffix(i));
            }
        }
    }

    static Arbitrary<String> path() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(30, Arbitraries.of(PATHS)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("/", "a", "/a/", "/a//b", "/a/./b")));
    }

    static Arbitrary<String> seqPrefix() {
        return Arbitraries.of("/s", "/a/s", "/a/b/s", "/b/a/");
    }

    static Arbitrary<byte[]> data() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(MAX_DATA + 2);
    }

    static Arbitrary<Integer> version() {
        return Arbitraries.of(-1, -1, 0, 1, 2);
    }

    static Arbitrary<Long> session() {
        return Arbitraries.of(1L, 2L, 3L);
    }

    /**
     * Creates of the modes without TTL (the generator of the regression seeds, unchanged since before TTL nodes).
     */
    static Arbitrary<Request> create() {
        Arbitrary<CreateMode> mode = Arbitraries.of(CreateMode.PERSISTENT, CreateMode.EPHEMERAL,
                CreateMode.PERSISTENT_SEQUENTIAL, CreateMode.EPHEMERAL_SEQUENTIAL, CreateMode.CONTAINER);
        return Combinators.combine(path(), seqPrefix(), mode, data()).as((p, prefix, m, d) ->
                new Request.Create(m.isSequential() ? prefix : p, d, m));
    }

    /** Creates of every mode; TTLs mostly valid for the TTL modes and absent for the others, sometimes not. */
    static Arbitrary<Request> createWithTtl() {
        Arbitrary<CreateMode> mode = Arbitraries.of(CreateMode.class);
        Arbitrary<Long> ttl = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.of(-1L)),
                net.jqwik.api.Tuple.of(6, Arbitraries.of(25L, 100L, 400L)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(0L, -5L, CreateMode.MAX_TTL_MS + 1)));
        return Combinators.combine(path(), seqPrefix(), mode, data(), ttl).as((p, prefix, m, d, t) ->
                new Request.Create(m.isSequential() ? prefix : p, d, m, null, m.isTtl() ? t : (t > 0 ? -1 : t)));
    }

    static Arbitrary<Request> nodeOp(boolean ttl) {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, ttl ? createWithTtl() : create()),
                net.jqwik.api.Tuple.of(3, Combinators.combine(path(), version()).as(Request.Delete::new)),
                net.jqwik.api.Tuple.of(3, Combinators.combine(path(), data(), version()).as(Request.SetData::new)),
                net.jqwik.api.Tuple.of(1, Combinators.combine(path(), version()).as(Request.Check::new)));
    }

    static Arbitrary<Request> request(boolean ttl) {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(12, nodeOp(ttl)),
                net.jqwik.api.Tuple.of(3, nodeOp(ttl).list().ofMinSize(0).ofMaxSize(4).map(Request.Multi::new)),
                net.jqwik.api.Tuple.of(1, session().map(s -> new Request.CreateSession(s, 5000, new byte[] {1}))),
                net.jqwik.api.Tuple.of(1, session().map(Request.CloseSession::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(null)));
    }

    static Arbitrary<List<Step>> steps() {
        return steps(false);
    }

    /** As {@link #steps()}, with TTL nodes among the creates when {@code ttl} (cleanup steps then expire some). */
    static Arbitrary<List<Step>> steps(boolean ttl) {
        Arbitrary<Step> step = Combinators.combine(request(ttl), session(), Arbitraries.of(true, true, false))
                .as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(80);
    }

    private OpGen() {
    }
}
