package dev.zkr.samples.mapreduce;

/** Unwinds a participant that was made to crash: no cleanup may run on the way out. */
final class Killed extends RuntimeException {

    Killed(String who) {
        super(who + " was killed", null, false, false);
    }
}
