/**
 * The native zkr client over Netty. {@link dev.zkr.client.netty.NativeZkClient} is the only public type; inside:
 * {@code ConnectionManager} (connection, handshake, failover, heartbeats, request pipeline on one event loop),
 * {@code WatchRegistry} (client-side watch manager), {@code EventThread} (the client's single callback thread),
 * {@code OutstandingRequest}/{@code ReplyDecoder} (one request and the mapping of its reply), {@code HostList} and
 * {@code EventLoops} (the NIO group shared by the clients of a JVM).
 */
package dev.zkr.client.netty;
