/**
 * The client port: {@link dev.zkr.server.port.NettyServer} (bootstrap, bind, close) and what it installs on each
 * connection — {@code ServerChannelInitializer} (connection limits, water marks, the shared budgets), {@code
 * ClientPortTls}, {@code ProtocolSwitch} (on the first bytes: zkr's framing and {@code ReplyFrameEncoder}, or
 * ZooKeeper's framing and {@code ZooKeeperCodec}, or a four-letter word answered by {@code FourLetterAnswers}),
 * {@code ConnectionHandler} (the wire side of the handshake,
 * batching a socket read's requests into one round event, backpressure, liveness) and {@code ChannelSink} (writes
 * each round's messages on the event loop). The port hands requests to the round ({@code Core.submit}) and reports
 * request latencies through {@link dev.zkr.server.port.RequestMetrics}. Runs on the {@code zkr-accept} and {@code
 * zkr-io-*} threads (docs/architecture.md, Threads).
 */
package dev.zkr.server.port;
