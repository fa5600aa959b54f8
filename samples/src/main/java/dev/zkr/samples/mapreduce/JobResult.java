package dev.zkr.samples.mapreduce;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a run, checked against a single-threaded word count of the same text.
 *
 * @param correct      the distributed counts equal the reference counts, word for word
 * @param verdict      the verdict line
 * @param words        words counted by the job
 * @param distinct     distinct words counted by the job
 * @param phaseMillis  duration of each phase, from the timeline znodes
 * @param phaseMasters the masters that worked on each phase, from the timeline znodes
 * @param redone       task claims beyond one per task, over all phases (redeliveries and duplicates)
 * @param barrierForms  how many times the shuffle barrier was formed (1, or more if a party died before arriving)
 * @param workerKilled a worker was killed (a fault was injected)
 * @param masterKilled a master was killed (a fault was injected)
 * @param serverKill   what {@code --kill-server} did (which server, the write pause), or null if no server was killed
 * @param outputDir    the job's output directory (part files and {@code _MANIFEST})
 * @param output       every line the run printed
 */
public record JobResult(boolean correct, String verdict, long words, int distinct, Map<Phase, Long> phaseMillis,
                        Map<Phase, List<String>> phaseMasters, long redone, int barrierForms, boolean workerKilled,
                        boolean masterKilled, ServerKillReport serverKill, Path outputDir,
                        List<String> output) {
}
