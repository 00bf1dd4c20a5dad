package io.pgmux.jdbc.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.SecretVolume;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordFileTest {
    @TempDir
    Path dir;

    @Test
    void takesTheWholeFileButTheLineBreakThatEndsItAsThePassword() throws IOException {
        Path file = Files.writeString(dir.resolve("password"), " s3cret with spaces \n");
        Credentials credentials = new PasswordFile(file, null).getCredentials();
        assertEquals(" s3cret with spaces ", credentials.getPassword());
        assertNull(credentials.getUsername(), "no usernameFile: the pool's own user");
    }

    @Test
    void readsTheNewSecretOnceASecretVolumeSwappedItsLink() {
        SecretVolume volume = new SecretVolume(dir, Map.of("password", "first"));
        PasswordFile provider = new PasswordFile(volume.file("password"), null);
        assertEquals("first", provider.getCredentials().getPassword());
        volume.update(Map.of("password", "second"));
        assertEquals("second", provider.getCredentials().getPassword());
    }

    @Test
    void readsTheUserNameFromUsernameFile() {
        SecretVolume volume = new SecretVolume(dir, Map.of("username", "app\n", "password", "pw"));
        Credentials credentials = new PasswordFile(volume.file("password"), volume.file("username")).getCredentials();
        assertEquals("app", credentials.getUsername());
        assertEquals("pw", credentials.getPassword());
    }

    @Test
    void namesTheFileItCannotRead() {
        Path missing = dir.resolve("missing");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PasswordFile(missing, null).getCredentials());
        assertEquals("passwordFile " + missing + " cannot be read (NoSuchFileException)", e.getMessage());
    }

    @Test
    void refusesAnEmptyFileNamingIt() throws IOException {
        Path file = Files.writeString(dir.resolve("password"), "\n");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PasswordFile(file, null).getCredentials());
        assertTrue(e.getMessage().equals("passwordFile " + file + " is empty"), e.getMessage());
    }
}
