package io.pgmux.jmh.load;

import java.util.ArrayList;
import java.util.List;

/** A Markdown table, built row by row and printed with its columns aligned. */
final class ResultTable {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    ResultTable(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    void row(String... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException(columns + " cells expected, got " + cells.length);
        }
        rows.add(cells);
    }

    static String ratio(double value, double base) {
        return base > 0 ? String.format("%.2f×", value / base) : "–";
    }

    static String number(double value, String format) {
        return Double.isNaN(value) ? "–" : String.format(format, value);
    }

    @Override
    public String toString() {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], Math.max(3, r[i].length()));
            }
        }
        StringBuilder b = new StringBuilder();
        for (int n = 0; n < rows.size(); n++) {
            line(b, rows.get(n), width);
            if (n == 0) {
                String[] rule = new String[columns];
                for (int i = 0; i < columns; i++) {
                    rule[i] = i == 0 ? "-".repeat(width[i]) : "-".repeat(width[i] - 1) + ":";
                }
                line(b, rule, width);
            }
        }
        return b.toString();
    }

    private static void line(StringBuilder b, String[] cells, int[] width) {
        b.append('|');
        for (int i = 0; i < cells.length; i++) {
            b.append(' ').append(cells[i]).append(" ".repeat(width[i] - cells[i].length())).append(" |");
        }
        b.append('\n');
    }
}
