package dev.zkr.wire.tls;

import dev.zkr.client.TlsConfig;
import io.netty.handler.ssl.SslContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * An {@link SslContext} built from a {@link TlsConfig}'s files and rebuilt when they change: {@link #check()} (called
 * every few seconds by its owner) compares a digest of the files' contents with the one the current context was
 * built from, and on a change builds a new context, which new connections get from {@link #current()}. Connections
 * open already keep the context they were made with. Files that do not load (a renewal half written) keep the old
 * context; they are tried again when they change again.
 */
public final class ReloadingSslContext {

    /** What {@link #check()} found. */
    public enum Outcome {
        /** The files are as they were. */
        UNCHANGED,
        /** The files changed and the new context is in use. */
        RELOADED,
        /** The files changed but do not load; the previous context stays in use. */
        FAILED
    }

    private final TlsConfig config;
    private final Function<TlsConfig, SslContext> factory;
    private volatile SslContext current;
    private String digest;
    private String failedDigest;
    private volatile String lastError;

    private ReloadingSslContext(TlsConfig config, Function<TlsConfig, SslContext> factory) {
        this.config = config;
        this.factory = factory;
        this.digest = digest();
        this.current = factory.apply(config); // fails at start with the file named
    }

    /** A server context (see {@link SslContexts#forServer}); throws IllegalArgumentException if it cannot load. */
    public static ReloadingSslContext server(TlsConfig config) {
        return new ReloadingSslContext(config, SslContexts::forServer);
    }

    /** A client context (see {@link SslContexts#forClient}); throws IllegalArgumentException if it cannot load. */
    public static ReloadingSslContext client(TlsConfig config) {
        return new ReloadingSslContext(config, SslContexts::forClient);
    }

    /** The context for a new connection. */
    public SslContext current() {
        return current;
    }

    public TlsConfig config() {
        return config;
    }

    /** Why the last changed files did not load (for the log line of a {@link Outcome#FAILED} check). */
    public String lastError() {
        return lastError;
    }

    /** Rebuilds the context if the files changed since it was built; thread-safe. */
    public synchronized Outcome check() {
        String now = digest();
        if (now.equals(digest) || now.equals(failedDigest)) {
            return Outcome.UNCHANGED;
        }
        try {
            current = factory.apply(config);
        } catch (RuntimeException e) {
            failedDigest = now;
            lastError = e.getMessage();
            return Outcome.FAILED;
        }
        digest = now;
        failedDigest = null;
        return Outcome.RELOADED;
    }

    /** SHA-256 over every file's content (a missing or unreadable file counts as its error message). */
    private String digest() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Path p : config.files()) {
                md.update(p.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                try {
                    md.update(Files.readAllBytes(p));
                } catch (IOException e) {
                    md.update(String.valueOf(e).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
