package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswdFileTest {
    @TempDir
    Path dir;

    @Test
    void aUidIsTheNameOfItsFirstLine() throws Exception {
        Path passwd = Files.writeString(dir.resolve("passwd"), """
                root:x:0:0:root:/root:/bin/bash
                # a comment:x:1000:
                alice:x:1000:1000:Alice,,,:/home/alice:/bin/sh
                alias:x:1000:1000::/home/alias:/bin/sh
                """);
        assertEquals("root", PasswdFile.userName(passwd, 0));
        assertEquals("alice", PasswdFile.userName(passwd, 1000));
    }

    @Test
    void aUidWithoutALineHasNoName() throws Exception {
        Path passwd = Files.writeString(dir.resolve("passwd"), "root:x:0:0:root:/root:/bin/bash\n");
        assertNull(PasswdFile.userName(passwd, 4242));
    }

    @Test
    void theSystemsFileNamesTheUserRunningTheJvm() throws Exception {
        long uid = (Integer) Files.getAttribute(Path.of(System.getProperty("user.home")), "unix:uid");
        String name = PasswdFile.userName(PasswdFile.SYSTEM, (int) uid);
        assertEquals(System.getProperty("user.name"), name);
    }
}
