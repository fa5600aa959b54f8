package dev.zkr.cli.inspect;

import dev.zkr.cli.Output;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code locks PATH}: the holder (session, fencing token) and the waiters in order of the lock at PATH (a
 * {@code DistributedLock} or a {@code ReadWriteLock}); if PATH holds no lock nodes itself, every lock among its
 * children.
 */
@Command(name = "locks", mixinStandardHelpOptions = true,
        description = "Show who holds the lock at PATH (or each lock below it) and who waits, in order.")
public final class LocksCommand extends InspectCommand {

    @Override
    void inspect(Inspector in, ReportFormat f, Output out) {
        List<Znode> children = in.children(path);
        if (LockLayout.hasLockNodes(children) || children.isEmpty()) {
            LockLayout.LockReport r = LockLayout.read(children);
            out.result(f.lockJson(path, r), f.lockText(path, r));
            return;
        }
        List<Object> json = new ArrayList<>();
        List<String> text = new ArrayList<>();
        for (Znode child : children.stream().sorted((a, b) -> a.name().compareTo(b.name())).toList()) {
            String p = ZkPaths.join(path, child.name());
            List<Znode> nodes = in.childrenOrNull(p);
            if (nodes != null && LockLayout.hasLockNodes(nodes)) {
                LockLayout.LockReport r = LockLayout.read(nodes);
                json.add(f.lockJson(p, r));
                text.addAll(f.lockText(p, r));
            }
        }
        if (text.isEmpty()) {
            text.add("no locks at or directly below " + path);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("locks", json);
        out.result(m, text);
    }
}
