package io.pgmux.core.pool;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What went wrong behind the wrappers of asynchronous code. */
public final class Failures {
    private Failures() {
    }

    /**
     * The failure a {@link CompletionException} or {@link ExecutionException} carries (through any number of them),
     * or {@code failure} itself when it is neither or carries nothing: a future's caller reports what failed, not
     * how the future passed it on.
     */
    public static Throwable cause(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
