/**
 * Replication driving: {@link dev.zkr.server.replication.ReplicaDriver} runs a consensus {@code Replica} inside the
 * rounds (the round's {@code Replication}), over {@link dev.zkr.server.replication.TxnLogView} (the replica's view
 * of the real log, a {@link dev.zkr.server.replication.DrivenLogView}), and sends through
 * {@link dev.zkr.server.replication.PeerOutbox} (a round's peer messages, handed to {@code peer.PeerTransport} once
 * per round); {@link dev.zkr.server.replication.QuorumOfOne} is the standalone fast path without a replica. The
 * peer transport itself is {@code dev.zkr.server.peer}; the consensus core, {@code dev.zkr.consensus}.
 */
package dev.zkr.server.replication;
