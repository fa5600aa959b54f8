/**
 * ZooKeeper's client protocol on zkr: the layer that lets Apache ZooKeeper clients (3.5 to 3.9), Curator and zkCli
 * talk to a zkr server. {@link dev.zkr.server.zookeeper.FirstFrame} tells a ZooKeeper connection from a native one
 * on its first bytes; {@link dev.zkr.server.zookeeper.ZooKeeperFrameDecoder} splits its length-prefixed frames; a
 * {@link dev.zkr.server.zookeeper.ZooKeeperTranslator} per connection turns each frame into the zkr
 * {@code Message} the server serves and each server message back into ZooKeeper's frame, with ZooKeeper's own
 * jute record classes ({@code org.apache.zookeeper.proto}, {@code .data}) as the wire format;
 * {@link dev.zkr.server.zookeeper.FourLetterReplies} answers the four-letter words in ZooKeeper's format. The client
 * port installs it ({@code dev.zkr.server.port}). What is translated and what needs server work:
 * {@code docs/zookeeper-compatibility.md}.
 */
package dev.zkr.server.zookeeper;
