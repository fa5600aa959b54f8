package dev.zkr.bench;

/** One cell of the result table: a measured value, or the reason there is none. */
record Measurement(double value, String failure) {

    static Measurement of(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return failed("no result");
        }
        return new Measurement(value, null);
    }

    static Measurement failed(String why) {
        return new Measurement(Double.NaN, why == null || why.isBlank() ? "failed" : why);
    }

    boolean ok() {
        return failure == null;
    }
}
