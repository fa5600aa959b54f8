package dev.zkr.check;

import java.util.ArrayList;
import java.util.List;

/** Compact construction of znode histories for tests: {@code h.op(client, from, to, path, call, outcome)}. */
final class Histories {

    private final List<Operation> ops = new ArrayList<>();

    Histories op(long client, long invoke, long response, String path, ZnodeCall call, Outcome outcome) {
        ops.add(new Operation(client, invoke, response, path, call, outcome));
        return this;
    }

    /** An operation without a reply, invoked at {@code invoke}. */
    Histories pending(long client, long invoke, String path, ZnodeCall call) {
        ops.add(new Operation(client, invoke, invoke, path, call, Outcome.indeterminate()));
        return this;
    }

    List<Operation> ops() {
        return List.copyOf(ops);
    }

    LinearizabilityReport check() {
        return new LinearizabilityChecker<>(new ZnodeModel()).check(ops);
    }

    static ZnodeCall create(String data) {
        return new ZnodeCall.Create(data);
    }

    static ZnodeCall set(String data, int expectedVersion) {
        return new ZnodeCall.SetData(data, expectedVersion);
    }

    static ZnodeCall delete(int expectedVersion) {
        return new ZnodeCall.Delete(expectedVersion);
    }

    static ZnodeCall read() {
        return new ZnodeCall.Read();
    }

    static ZnodeCall check(int version) {
        return new ZnodeCall.CheckVersion(version);
    }

    /** Ok, reporting the node {@code data@vversion}. */
    static Outcome ok(String data, int version) {
        return Outcome.ok(Znode.present(data, version));
    }

    static Outcome okAbsent() {
        return Outcome.ok(Znode.ABSENT);
    }

    static Outcome ok() {
        return Outcome.ok();
    }

    static Outcome failed(String error) {
        return Outcome.failed(error);
    }
}
