package io.pgmux.proxy;

import io.pgmux.proxy.config.ProxySetting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * pgmux's auth_file_check_period, a janitor chore: every period the auth file is looked at, on BlockingWork, and
 * when its modification time, size or the file itself (a Kubernetes secret volume swaps a link to a new one)
 * changed, it is read again ({@link SettingsApply#authFileChanged}), so that a client's next login uses the new
 * entry without a RELOAD. Off (0) by default, as PgBouncer reads the file only at RELOAD.
 */
final class AuthFileWatch implements Runnable {
    private final SettingsApply settings;
    private final Executor blockingWork;
    /** One look at a time: a slow file system must not pile them up. */
    private final AtomicBoolean looking = new AtomicBoolean();
    /** The janitor's thread alone reads and writes it. */
    private long lastLookNanos;
    /** What the last look saw; read and written by one look at a time. */
    private volatile Stamp seen;

    /** Takes the file as it is now as the one read. */
    AuthFileWatch(SettingsApply settings, Executor blockingWork) {
        this.settings = settings;
        this.blockingWork = blockingWork;
        this.seen = Stamp.of(settings.settings().get(ProxySetting.AUTH_FILE));
        this.lastLookNanos = System.nanoTime();
    }

    @Override
    public void run() {
        Duration period = settings.settings().get(ProxySetting.AUTH_FILE_CHECK_PERIOD);
        long now = System.nanoTime();
        if (period.isZero() || now - lastLookNanos < period.toNanos() || !looking.compareAndSet(false, true)) {
            return;
        }
        lastLookNanos = now;
        blockingWork.execute(() -> {
            try {
                look();
            } finally {
                looking.set(false);
            }
        });
    }

    private void look() {
        Stamp now = Stamp.of(settings.settings().get(ProxySetting.AUTH_FILE));
        if (!now.equals(seen)) {
            seen = now;
            if (now.file() != null) {
                settings.authFileChanged();
            }
        }
    }

    /** What tells a changed file: its name, the file it leads to, its modification time and size. */
    private record Stamp(Path file, Object key, long modifiedNanos, long size) {
        static Stamp of(Path file) {
            if (file == null) {
                return new Stamp(null, null, 0, 0);
            }
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                return new Stamp(file, a.fileKey(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), a.size());
            } catch (IOException e) {
                // gone for now (a volume being swapped): the next look that finds it reads it
                return new Stamp(file, null, -1, -1);
            }
        }
    }
}
