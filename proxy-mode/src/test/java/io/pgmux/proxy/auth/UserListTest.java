package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UserListTest {

    @Test
    void readsPlaintextMd5AndScramSecrets() {
        UserList users = UserList.parse(String.join("\n",
                "\"alice\" \"pencil\"",
                "\"bob\" \"" + SecretTest.POSTGRES_MD5_USER_HASH + "\"",
                "\"carol\" \"" + SecretTest.POSTGRES_PENCIL_VERIFIER + "\""));
        assertEquals(3, users.size());
        assertTrue(users.find("alice").orElseThrow().matchesCleartext("alice", "pencil"));
        assertInstanceOf(Md5Secret.class, users.find("bob").orElseThrow());
        assertInstanceOf(ScramSecret.class, users.find("carol").orElseThrow());
        assertTrue(users.find("dave").isEmpty());
    }

    @Test
    void doubledQuoteStandsForOneQuote() {
        UserList users = UserList.parse("\"o\"\"brien\" \"pa\"\"ss\"\"\"");
        PlaintextSecret secret = (PlaintextSecret) users.find("o\"brien").orElseThrow();
        assertEquals("pa\"ss\"", secret.password());
    }

    @Test
    void ignoresCommentsBlankLinesAndTrailingFields() {
        UserList users = UserList.parse(String.join("\n",
                "; PgBouncer comment",
                "# also a comment",
                "",
                "   ",
                "  \"alice\"   \"pencil\"   \"\" trailing stuff PgBouncer ignores",
                "\t\"bob\"\t\"x y\""));
        assertEquals(Map.of("alice", "pencil", "bob", "x y"), Map.of(
                "alice", ((PlaintextSecret) users.find("alice").orElseThrow()).password(),
                "bob", ((PlaintextSecret) users.find("bob").orElseThrow()).password()));
    }

    @Test
    void emptySecretIsAllowedAndMatchesNothing() {
        UserList users = UserList.parse("\"alice\" \"\"");
        assertFalse(users.find("alice").orElseThrow().matchesCleartext("alice", ""));
    }

    @Test
    void lastEntryForAUserWins() {
        UserList users = UserList.parse("\"alice\" \"old\"\n\"alice\" \"new\"");
        assertEquals("new", ((PlaintextSecret) users.find("alice").orElseThrow()).password());
    }

    @Test
    void lineNotStartingWithAQuoteIsReportedWithItsNumber() {
        UserListFormatException e = assertThrows(UserListFormatException.class,
                () -> UserList.parse("\"alice\" \"pencil\"\n\nalice pencil\n"));
        assertEquals(3, e.lineNumber());
        assertEquals("auth file line 3: expected a double-quoted user name", e.getMessage());
    }

    @Test
    void unterminatedUserNameIsReported() {
        UserListFormatException e = assertThrows(UserListFormatException.class, () -> UserList.parse("\"alice"));
        assertEquals("auth file line 1: unterminated quoted user name", e.getMessage());
    }

    @Test
    void missingSecretIsReported() {
        UserListFormatException e = assertThrows(UserListFormatException.class,
                () -> UserList.parse("\"alice\"\n"));
        assertEquals("auth file line 1: expected a double-quoted secret", e.getMessage());
    }

    @Test
    void unterminatedSecretIsReportedWithoutShowingIt() {
        UserListFormatException e = assertThrows(UserListFormatException.class,
                () -> UserList.parse("\"alice\" \"hunter2"));
        assertEquals("auth file line 1: unterminated quoted secret", e.getMessage());
    }

    @Test
    void emptyUserNameIsReported() {
        UserListFormatException e = assertThrows(UserListFormatException.class, () -> UserList.parse("\"\" \"x\""));
        assertEquals(1, e.lineNumber());
    }

    @Test
    void malformedScramVerifierIsReportedWithLineAndUserButNotTheVerifier() {
        UserListFormatException e = assertThrows(UserListFormatException.class,
                () -> UserList.parse("\"a\" \"b\"\n\"carol\" \"SCRAM-SHA-256$4096:zzz$abc:def\""));
        assertEquals(2, e.lineNumber());
        assertTrue(e.getMessage().contains("\"carol\""), e.getMessage());
        assertFalse(e.getMessage().contains("zzz"), e.getMessage());
    }

    @Test
    void loadsAFileAsUtf8(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("userlist.txt");
        Files.writeString(file, "\"jürgen\" \"pässword\"\n", StandardCharsets.UTF_8);
        UserList users = UserList.load(file);
        assertTrue(users.find("jürgen").orElseThrow().matchesCleartext("jürgen", "pässword"));
    }

    @Test
    void aByteThatIsNotUtf8IsRefusedNamingTheAuthFileItsLineAndTheByte(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("userlist.txt");
        Files.write(file, "\"alice\" \"pencil\"\n\"bob\" \"x\"\n\"car\u00ffol\" \"pencil\"\n".getBytes(StandardCharsets.ISO_8859_1));
        UserListFormatException e = assertThrows(UserListFormatException.class, () -> UserList.load(file));
        assertEquals(3, e.lineNumber());
        assertEquals("auth_file " + file + " line 3: byte 0xFF at column 5 is not UTF-8 (the file must be UTF-8)",
                e.getMessage());
    }

    @Test
    void aMalformedLineOfAFileNamesTheAuthFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("userlist.txt"), "\"alice\" \"pencil\"\nbob\n");
        UserListFormatException e = assertThrows(UserListFormatException.class, () -> UserList.load(file));
        assertEquals("auth_file " + file + " line 2: expected a double-quoted user name", e.getMessage());
    }

    @Test
    void inMemoryTableAcceptsTheSameSecretForms() {
        UserSecrets secrets = UserSecrets.of(Map.of("alice", "pencil", "carol", SecretTest.POSTGRES_PENCIL_VERIFIER));
        assertInstanceOf(PlaintextSecret.class, secrets.find("alice").orElseThrow());
        assertInstanceOf(ScramSecret.class, secrets.find("carol").orElseThrow());
        assertTrue(secrets.find("bob").isEmpty());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UserSecrets.of(Map.of("dave", "SCRAM-SHA-256$broken")));
        assertTrue(e.getMessage().startsWith("user \"dave\""), e.getMessage());
    }
}
