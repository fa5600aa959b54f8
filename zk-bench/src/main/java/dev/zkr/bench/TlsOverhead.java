package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

import java.util.Locale;

/** The note under the table giving each system's TLS figure relative to its plaintext figure of the same run. */
final class TlsOverhead {

    private TlsOverhead() {
    }

    /** "{@code id}: TLS / plaintext throughput, same rounds — zkr 0.93 (-7 %), ZooKeeper 0.88 (-12 %)". */
    static String note(String id, ResultTable.Row plain, ResultTable.Row tls) {
        return id + ": TLS / plaintext throughput, same rounds — zkr " + ratio(plain, tls, Column.ZKR)
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
