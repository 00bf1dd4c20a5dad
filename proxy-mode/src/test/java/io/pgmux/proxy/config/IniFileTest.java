package io.pgmux.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IniFileTest {
    @TempDir
    Path dir;

    private Path write(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content);
    }

    @Test
    void includedFileIsReadInPlaceAndLaterKeysWin() throws Exception {
        Path extra = write("extra.ini", "[databases]\nb = host=hb\n[pgbouncer]\npool_mode = transaction\n"
                + "default_pool_size = 7\n");
        Path main = write("main.ini", "[databases]\na = host=ha\n[pgbouncer]\ndefault_pool_size = 3\n%include "
                + extra + "\npool_mode = statement\n");
        IniFile ini = IniFile.load(main);
        assertEquals("host=ha", ini.section("databases").get("a"));
        assertEquals("host=hb", ini.section("databases").get("b"));
        assertEquals("7", ini.section("pgbouncer").get("default_pool_size"), "the include comes after 3");
        assertEquals("statement", ini.section("pgbouncer").get("pool_mode"), "the line after the include wins");
    }

    @Test
    void eachValueKeepsTheFileAndLineThatSetItLast() throws Exception {
        Path extra = write("extra.ini", "\ndefault_pool_size = 7\n");
        Path main = write("main.ini", "[pgbouncer]\npool_mode = session\n%include " + extra
                + "\npool_mode = statement\n");
        IniFile ini = IniFile.load(main);
        assertEquals(extra.toAbsolutePath().normalize() + " line 2", ini.place("pgbouncer", "default_pool_size"));
        assertEquals(main.toAbsolutePath().normalize() + " line 4", ini.place("PGBOUNCER", "pool_mode"));
        assertEquals("line 2", IniFile.parse("[users]\nbob = pool_size=1\n").place("users", "bob"));
    }

    @Test
    void includedFileContinuesTheSectionItIsIncludedIn() throws Exception {
        Path dbs = write("dbs.ini", "b = host=hb\n");
        IniFile ini = IniFile.load(write("main.ini", "[databases]\na = host=ha\n%include " + dbs + "\n"));
        assertEquals("host=hb", ini.section("databases").get("b"));
    }

    @Test
    void relativeIncludeIsTakenFromTheWorkingDirectory() throws Exception {
        Path extra = write("extra.ini", "[users]\nbob = pool_mode=session\n");
        Path relative = Path.of("").toAbsolutePath().relativize(extra);
        IniFile ini = IniFile.load(write("main.ini", "[databases]\na =\n%include " + relative + "\n"));
        assertEquals("pool_mode=session", ini.section("users").get("bob"));
    }

    @Test
    void relativeIncludeIsNotLookedUpNextToTheIncludingFile() throws Exception {
        write("beside.ini", "[databases]\nb =\n");
        Path main = write("main.ini", "[databases]\na =\n%include beside.ini\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(main));
        assertTrue(e.getMessage().startsWith(main + " line 3: %include beside.ini: no such file "),
                e.getMessage());
    }

    @Test
    void missingIncludedFileIsRefusedNamingTheFileAndLine() throws Exception {
        Path main = write("main.ini", "[databases]\n%include " + dir.resolve("absent.ini") + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(main));
        assertTrue(e.getMessage().startsWith(main + " line 2: %include "), e.getMessage());
        assertTrue(e.getMessage().contains("absent.ini"), e.getMessage());
    }

    @Test
    void includeCycleIsRefusedNamingTheFileAndLine() throws Exception {
        Path a = dir.resolve("a.ini");
        Path b = write("b.ini", "; b\n%include " + a + "\n");
        write("a.ini", "[databases]\n%include " + b + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(a));
        assertEquals(b + " line 2: %include " + a + ": " + a + " is already being read (an include cycle)",
                e.getMessage());
    }

    @Test
    void malformedLineOfAnIncludedFileIsNamedWithThatFile() throws Exception {
        Path extra = write("extra.ini", "[pgbouncer]\nlisten_port\n");
        Path main = write("main.ini", "[databases]\na =\n%include " + extra + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(main));
        assertEquals(extra + " line 2: expected key = value", e.getMessage());
    }

    @Test
    void unknownDirectiveIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IniFile.parse("[databases]\n%includedir conf.d\n"));
        assertEquals("line 2: unknown directive \"%includedir\" (only %include exists)", e.getMessage());
    }

    @Test
    void aByteThatIsNotUtf8IsRefusedNamingFileLineAndByte() throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.write(ini, "[databases]\na = host=h\n[pgbouncer]\nlogin_notify_message = \u00a1hola\n"
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(ini));
        assertEquals(ini + " line 4: byte 0xA1 at column 24 is not UTF-8 (the file must be UTF-8)", e.getMessage());
    }

    @Test
    void anIncludeOfANameWithANulIsRefusedAtItsLine() throws Exception {
        Path main = write("main.ini", "[databases]\na =\n%include extra\u0000.ini\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(main));
        assertEquals(main + " line 3: control character U+0000 at column 15 (the file must be text)", e.getMessage());
    }

    @Test
    void anIncludeOfADirectoryIsRefusedAtItsLine() throws Exception {
        Path main = write("main.ini", "[databases]\na =\n%include " + dir + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(main));
        assertEquals(main + " line 3: %include " + dir + ": cannot read " + dir + ": Is a directory", e.getMessage());
    }

    @Test
    void aLineSeparatorInsideAKeyIsRefusedNamingLineAndColumn() throws Exception {
        Path main = write("main.ini", "[pgbouncer]\nlisten\u2028port = 1\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IniFile.load(main));
        assertEquals(main + " line 2: control character U+2028 at column 7 (the file must be text)", e.getMessage());
    }
}
