package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class FailuresTest {
    private final IllegalStateException failure = new IllegalStateException("server closed");

    @Test
    void aCompletionExceptionGivesWhatItCarries() {
        assertSame(failure, Failures.cause(new CompletionException(failure)));
    }

    @Test
    void anExecutionExceptionGivesWhatItCarries() {
        assertSame(failure, Failures.cause(new ExecutionException(failure)));
    }

    @Test
    void nestedWrappersAreAllTakenOff() {
        assertSame(failure, Failures.cause(new CompletionException(new ExecutionException(failure))));
    }

    @Test
    void aWrapperCarryingNothingIsTheFailure() {
        CompletionException empty = new CompletionException("cancelled", null);
        assertSame(empty, Failures.cause(empty));
    }

    @Test
    void anyOtherFailureIsItself() {
        RuntimeException wrapping = new RuntimeException(failure);
        assertSame(wrapping, Failures.cause(wrapping));
    }
}
