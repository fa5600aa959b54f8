package dev.zkr.recipes;

import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Tries that scale with the build's budget: {@code value} is the number of tries when {@code jqwik.tries.default}
 * is 25 (the default {@code mvn verify}); under {@code -Plong} (500) it is 20 times as many. On a method it replaces
 * the default for that property; on a class it scales every property of the class once more by {@code value / 25}
 * (a slower backend running a fraction of the tries). Use it instead of {@code @Property(tries = ...)}, which does
 * not follow the profile.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@AddLifecycleHook(value = ScaledTries.Hook.class, propagateTo = PropagationMode.DIRECT_DESCENDANTS)
public @interface ScaledTries {

    /** Tries at the default budget of 25. */
    int value();

    /** Sets the property's tries from the annotations and {@code jqwik.tries.default}. */
    final class Hook implements AroundPropertyHook {

        static final int DEFAULT_BUDGET = 25;

        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            if (!context.targetMethod().isAnnotationPresent(net.jqwik.api.Example.class)) {
                context.attributes().setTries(tries(context)); // an @Example is one fixed case: it runs once
            }
            return property.execute();
        }

        static int tries(PropertyLifecycleContext context) {
            int budget = budget();
            double tries = budget;
            ScaledTries onMethod = context.targetMethod().getAnnotation(ScaledTries.class);
            if (onMethod != null) {
                tries = (double) onMethod.value() * budget / DEFAULT_BUDGET;
            }
            for (ScaledTries onClass : context.findAnnotationsInContainer(ScaledTries.class)) {
                tries = tries * onClass.value() / DEFAULT_BUDGET;
            }
            return Math.max(1, (int) Math.round(tries));
        }

        /** The build's budget: {@code jqwik.tries.default} (25 unless set; 500 under {@code -Plong}). */
        static int budget() {
            String configured = System.getProperty("jqwik.tries.default");
            try {
                return configured == null ? DEFAULT_BUDGET : Math.max(1, Integer.parseInt(configured.trim()));
            } catch (NumberFormatException e) {
                return DEFAULT_BUDGET;
            }
        }
    }
}
