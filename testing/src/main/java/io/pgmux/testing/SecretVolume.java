package io.pgmux.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * A directory laid out as the kubelet lays out a secret volume: each key a symbolic link {@code key ->
 * ..data/key}, {@code ..data} a link to a directory of the current version, and an update a new version
 * directory that {@code ..data} is swapped to by one rename, so that readers see the old or the new secret,
 * never a mix.
 */
public final class SecretVolume {
    private final Path dir;
    private int version;

    public SecretVolume(Path dir, Map<String, String> secrets) {
        this.dir = dir;
        try {
            Path data = writeVersion(secrets);
            Files.createSymbolicLink(dir.resolve("..data"), data.getFileName());
            for (String key : secrets.keySet()) {
                Files.createSymbolicLink(dir.resolve(key), Path.of("..data", key));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where a key is read, as an application sees it. */
    public Path file(String key) {
        return dir.resolve(key);
    }

    /** Replaces every secret at once, as the kubelet does when the Secret changes. */
    public void update(Map<String, String> secrets) {
        try {
            Path data = writeVersion(secrets);
            Path link = dir.resolve("..data_tmp");
            Files.createSymbolicLink(link, data.getFileName());
            Files.move(link, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path writeVersion(Map<String, String> secrets) throws IOException {
        Path data = Files.createDirectory(dir.resolve("..version_" + ++version));
        for (Map.Entry<String, String> e : secrets.entrySet()) {
            Files.writeString(data.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
        }
        return data;
    }
}
