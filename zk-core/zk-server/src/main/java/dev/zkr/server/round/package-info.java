/**
 * The round: {@link dev.zkr.server.round.Core} (the event queue, the round lock, the {@code zkr-core} thread) around
 * {@code Pipeline} (the round logic, thread-free) and the classes it is split into — {@code ClientRequests},
 * {@code LeaderSide}, {@code FollowerSide}, {@code HeldHandshakes}, {@code HeldRequests}, {@code Fence},
 * {@code ReadPoints}, {@code ReplyQueue}, {@code RoleView}, {@code LeaderLink} — the stages ({@code SessionGate},
 * {@code ReadStage}, {@code PrepStage}, {@link dev.zkr.server.round.LogStage}, {@code ApplyStage},
 * {@code Housekeeping}) and a client connection as the round sees it ({@link dev.zkr.server.round.Connection},
 * {@code Outbox}). It reaches replication through {@link dev.zkr.server.round.Replication} and the peers through
 * {@link dev.zkr.server.round.PeerLink}, implemented in {@code dev.zkr.server.replication}.
 *
 * <p>Everything here but {@code Core}'s entry points is round state: touched only inside a round, under
 * {@code Core}'s round lock, whichever thread runs it (docs/architecture.md, Threads). The whole-server simulator
 * ({@code ServerSim}, in this package's tests) drives the same classes on one thread.
 */
package dev.zkr.server.round;
