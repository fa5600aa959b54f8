package dev.zkr.chaos.report;

import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.nemesis.FaultWindow;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The run's picture, a self-contained SVG: acknowledged operations per second and reply latency (median and
 * maximum per 500 ms bucket, log scale) over time, fault windows shaded and labelled, indeterminate replies as red
 * ticks. Pure: history in, text out.
 */
public final class Timeline {

    private static final long BUCKET = 500_000_000L;
    private static final int W = 1100;
    private static final int PLOT_W = 1000;
    private static final int LEFT = 70;
    private static final int TOP = 40;
    private static final int H = 180;
    private static final int GAP = 50;

    private Timeline() {
    }

    public static String svg(String title, List<Op> ops, List<FaultWindow> faults, long end) {
        long span = Math.max(end, BUCKET);
        int buckets = (int) ((span + BUCKET - 1) / BUCKET);
        int[] okCount = new int[buckets];
        List<List<Long>> latencies = new ArrayList<>();
        for (int b = 0; b < buckets; b++) {
            latencies.add(new ArrayList<>());
        }
        for (Op op : ops) {
            int b = (int) Math.min(buckets - 1, Math.max(0, op.complete() / BUCKET));
            if (op.ok()) {
                okCount[b]++;
            }
            if (!op.indeterminate()) {
                latencies.get(b).add(op.complete() - op.invoke());
            }
        }
        double maxRate = 1;
        for (int c : okCount) {
            maxRate = Math.max(maxRate, c * 1e9 / BUCKET);
        }
        int height = TOP + 2 * H + GAP + 60;
        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(height)
                .append("\" font-family=\"sans-serif\" font-size=\"11\">\n");
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append("<text x=\"").append(LEFT).append("\" y=\"20\" font-size=\"14\">").append(esc(title)).append("</text>\n");
        int top2 = TOP + H + GAP;
        for (FaultWindow f : faults) {
            double x0 = x(f.start(), span);
            double x1 = Math.max(x0 + 1, x(f.end(), span));
            for (int top : new int[] {TOP, top2}) {
                s.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f5b041\" opacity=\"0.35\">"
                                + "<title>%s</title></rect>\n", x0, top, x1 - x0, H, esc(f.description())));
            }
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\">%s</text>\n", x0 + 2,
                    TOP + 10, esc(f.kind())));
        }
        axes(s, TOP, "acknowledged ops/s (max " + Math.round(maxRate) + ")");
        axes(s, top2, "latency ms, log: median (blue), max (grey)");
        StringBuilder rate = new StringBuilder();
        StringBuilder median = new StringBuilder();
        StringBuilder max = new StringBuilder();
        for (int b = 0; b < buckets; b++) {
            double x = x(b * BUCKET + BUCKET / 2, span);
            double r = okCount[b] * 1e9 / BUCKET;
            rate.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, TOP + H - r / maxRate * H));
            List<Long> l = latencies.get(b);
            if (!l.isEmpty()) {
                long[] sorted = l.stream().mapToLong(Long::longValue).sorted().toArray();
                median.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, latencyY(sorted[sorted.length / 2], top2)));
                max.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, latencyY(sorted[sorted.length - 1], top2)));
            }
        }
        s.append("<polyline fill=\"none\" stroke=\"#1e8449\" stroke-width=\"1.5\" points=\"").append(rate)
                .append("\"/>\n");
        s.append("<polyline fill=\"none\" stroke=\"#aaaaaa\" stroke-width=\"1\" points=\"").append(max).append("\"/>\n");
        s.append("<polyline fill=\"none\" stroke=\"#2e86c1\" stroke-width=\"1.5\" points=\"").append(median)
                .append("\"/>\n");
        for (Op op : ops) {
            if (op.indeterminate()) {
                double x = x(op.complete(), span);
                s.append(String.format(Locale.ROOT,
                        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#c0392b\"/>\n", x, x, top2 + H,
                        top2 + H + 6));
            }
        }
        for (int sec = 0; sec * 1_000_000_000L <= span; sec += 10) {
            double x = x(sec * 1_000_000_000L, span);
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>\n", x,
                    top2 + H + 20, sec));
        }
        for (double ms : new double[] {1, 10, 100, 1000, 10000}) {
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 4,
                    latencyY((long) (ms * 1e6), top2) + 4, ms >= 1000 ? (int) (ms / 1000) + "s" : (int) ms + "ms"));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">shaded: fault windows; red ticks: "
                + "indeterminate replies (timeouts, lost connections)</text>\n", LEFT, height - 10));
        return s.append("</svg>\n").toString();
    }

    private static void axes(StringBuilder s, int top, String label) {
        s.append(String.format(Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", LEFT, top,
                PLOT_W, H));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", LEFT, top - 4, esc(label)));
    }

    private static double x(long t, long span) {
        return LEFT + (double) t / span * PLOT_W;
    }

    /** 0.1 ms .. 100 s on a log scale. */
    private static double latencyY(long nanos, int top) {
        double ms = Math.max(0.1, nanos / 1e6);
        double f = (Math.log10(ms) + 1) / 6.0;
        return top + H - Math.min(1, f) * H;
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
