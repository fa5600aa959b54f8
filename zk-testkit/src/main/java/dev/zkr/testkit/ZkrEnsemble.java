package dev.zkr.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Configures the {@link TestEnsemble} that {@link ZkrExtension} injects. On a test class it applies to every test;
 * on a test method it overrides the class's setting for that test (and gives the test an ensemble of its own).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ZkrEnsemble {

    /** Lifetime of the injected ensemble. */
    enum Scope {
        /** One ensemble for all tests of the class (data persists between tests). */
        PER_CLASS,
        /** A fresh ensemble for each test. */
        PER_TEST
    }

    Scope scope() default Scope.PER_CLASS;

    /** Number of servers: 1 (standalone), 3 or 5 (a replicated ensemble). */
    int servers() default 1;

    /** Server tick time in milliseconds. */
    long tickTimeMs() default 100;

    /** Session timeout of injected clients, in milliseconds. */
    long clientSessionTimeoutMs() default 5000;
}
