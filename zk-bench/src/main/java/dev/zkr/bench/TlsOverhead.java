package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

import java.util.Locale;

/** The note under the table giving each system's TLS figure relative to its plaintext figure of the same run. */
final class TlsOverhead {

    private TlsOverhead() {
    }

    /**
     * "{@code id}: zkr TLS/plaintext 0.93 (−7 %), ZooKeeper 0.88 (−12 %)", or why there is no figure (the
     * plaintext row did not run, or a cell failed).
     */
    static String note(String id, ResultTable.Row plain, ResultTable.Row tls) {
        if (plain == null) {
            return id + ": no TLS overhead figure (run the plaintext row too: --only create,tlscreate,...)";
        }
        return id + ": TLS / plaintext throughput of the same run — zkr " + ratio(plain, tls, Column.ZKR)
                + ", ZooKeeper " + ratio(plain, tls, Column.ZOOKEEPER);
    }

    static String ratio(ResultTable.Row plain, ResultTable.Row tls, Column column) {
        Measurement p = plain.cell(column);
        Measurement t = tls.cell(column);
        if (!p.ok() || !t.ok() || p.value() <= 0) {
            return "n/a";
        }
        double r = t.value() / p.value();
        return String.format(Locale.ROOT, "%.2f (%+.0f %%)", r, (r - 1) * 100);
    }
}
