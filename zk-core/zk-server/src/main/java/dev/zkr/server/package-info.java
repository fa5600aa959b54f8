/**
 * The server's front door: {@link dev.zkr.server.ZkServer} (start, recover, wire, close), {@link
 * dev.zkr.server.ZkServerMain} (the command line), {@link dev.zkr.server.ServerConfig} (the value, its builder and
 * validation) with {@code ServerProperties} (the properties parser), {@code MemberList} and {@code MyIdFile}, and
 * {@code Assembler}, which wires the parts kept in the sub-packages: the client port ({@code port}), the round
 * ({@code round}), replication ({@code replication}, {@code peer}) and the admin endpoint ({@code admin}). Also the
 * problem log ({@link dev.zkr.server.ProblemLog}) every part writes its rate-limited problem lines to.
 * docs/architecture.md, Code map.
 */
package dev.zkr.server;
