package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ResultTableTest {

    @Test
    void printsAMarkdownTableWithRightAlignedFiguresAfterTheFirstColumn() {
        ResultTable t = new ResultTable("", "TPS");
        t.row("pgmux", "1200");
        assertEquals("|       | TPS  |\n"
                + "| ----- | ---: |\n"
                + "| pgmux | 1200 |\n", t.toString());
    }

    @Test
    void refusesARowWithTheWrongNumberOfCells() {
        ResultTable t = new ResultTable("", "TPS");
        assertThrows(IllegalArgumentException.class, () -> t.row("pgmux"));
    }

    @Test
    void ratiosHaveTwoDecimalsAndNoneAgainstNothing() {
        assertEquals("5.00×", ResultTable.ratio(1000, 200));
        assertEquals("–", ResultTable.ratio(1000, 0));
    }
}
