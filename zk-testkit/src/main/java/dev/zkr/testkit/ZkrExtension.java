package dev.zkr.testkit;

import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.lang.reflect.AnnotatedElement;
import java.time.Duration;
import java.util.Optional;

/**
 * JUnit 5 extension: {@code @ExtendWith(ZkrExtension.class)} injects a running {@link TestEnsemble} and connected
 * {@link ZkClient}s into test, lifecycle and constructor parameters. Each {@code ZkClient} parameter is a new client
 * (its own session), closed after the test (or after the class, for {@code @BeforeAll}). The ensemble lives per
 * class or per test as {@link ZkrEnsemble} says (default: per class), and is closed with it.
 */
public final class ZkrExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ZkrExtension.class);
    private static final ZkrEnsemble DEFAULTS = Defaults.class.getAnnotation(ZkrEnsemble.class);

    @ZkrEnsemble
    private static final class Defaults {
    }

    /** Closes a resource when its extension context ends. */
    private record Closer(AutoCloseable resource) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() throws Throwable {
            resource.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TestEnsemble.class || type == ZkClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ZkrEnsemble config = config(context);
        TestEnsemble ensemble = ensemble(context, config);
        if (parameter.getParameter().getType() == TestEnsemble.class) {
            return ensemble;
        }
        try {
            ZkClient client = ensemble.newClient(Duration.ofMillis(config.clientSessionTimeoutMs()));
            context.getStore(NS).put(new Object(), new Closer(client));
            return client;
        } catch (RuntimeException e) {
            throw new ParameterResolutionException("cannot connect a ZkClient to " + ensemble.connectString()
                    + ": " + e.getMessage(), e);
        }
    }

    private static TestEnsemble ensemble(ExtensionContext context, ZkrEnsemble config) {
        boolean methodScoped = context.getTestMethod().isPresent()
                && (config.scope() == ZkrEnsemble.Scope.PER_TEST
                || context.getTestMethod().get().isAnnotationPresent(ZkrEnsemble.class));
        ExtensionContext owner = methodScoped ? context : classContext(context);
        // distinct keys: a method store also sees its class store's entries
        Closer closer = owner.getStore(NS).getOrComputeIfAbsent(methodScoped ? "test-ensemble" : "class-ensemble",
                k -> new Closer(TestEnsemble.builder()
                        .servers(config.servers())
                        .tickTime(Duration.ofMillis(config.tickTimeMs()))
                        .clientSessionTimeout(Duration.ofMillis(config.clientSessionTimeoutMs()))
                        .start()), Closer.class);
        return (TestEnsemble) closer.resource();
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }

    private static ZkrEnsemble config(ExtensionContext context) {
        Optional<ZkrEnsemble> onMethod = context.getTestMethod().map(m -> m.getAnnotation(ZkrEnsemble.class));
        if (onMethod.isPresent()) {
            return onMethod.get();
        }
        for (Optional<Class<?>> c = context.getTestClass(); c.isPresent(); c = enclosing(c.get())) {
            ZkrEnsemble a = ((AnnotatedElement) c.get()).getAnnotation(ZkrEnsemble.class);
            if (a != null) {
                return a;
            }
        }
        return DEFAULTS;
    }

    private static Optional<Class<?>> enclosing(Class<?> c) {
        return Optional.ofNullable(c.getEnclosingClass());
    }
}
