package io.pgmux.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command that a Markdown file's code blocks tell a user to run, as its shell words: lines continued with a
 * backslash joined, a trailing {@code # comment}, redirections and a trailing {@code &} dropped, and of a
 * pipeline only the part that names {@code marker}. {@code files} are the files the same code block writes with
 * a here-document ({@code cat > name <<'END'}), which the command may read.
 */
record DocumentedCommand(String where, List<String> words, Map<String, String> files) {
    private static final Pattern HEREDOC = Pattern.compile("cat\\s+>\\s*(\\S+)\\s+<<\\s*'?(\\w+)'?\\s*");

    /** Every command in {@code markdown}'s code blocks that contains {@code marker}, in order. */
    static List<DocumentedCommand> read(Path markdown, String marker) throws IOException {
        List<String> lines = Files.readAllLines(markdown);
        List<DocumentedCommand> commands = new ArrayList<>();
        boolean inBlock = false;
        Map<String, String> files = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                inBlock = !inBlock;
                files = new LinkedHashMap<>();
                continue;
            }
            if (!inBlock) {
                continue;
            }
            Matcher heredoc = HEREDOC.matcher(line);
            if (heredoc.matches()) {
                StringBuilder content = new StringBuilder();
                while (++i < lines.size() && !lines.get(i).equals(heredoc.group(2))) {
                    content.append(lines.get(i)).append('\n');
                }
                files.put(heredoc.group(1), content.toString());
                continue;
            }
            int first = i;
            StringBuilder logical = new StringBuilder();
            while (line.endsWith("\\") && i + 1 < lines.size()) {
                logical.append(line, 0, line.length() - 1).append(' ');
                line = lines.get(++i);
            }
            logical.append(line);
            if (logical.indexOf(marker) >= 0) {
                commands.add(new DocumentedCommand(markdown.getFileName() + ":" + (first + 1),
                        words(logical.toString(), marker), Map.copyOf(files)));
            }
        }
        return commands;
    }

    /** The shell words of the pipeline stage that names {@code marker}, quotes removed. */
    static List<String> words(String line, String marker) {
        List<List<String>> stages = new ArrayList<>();
        List<String> words = new ArrayList<>();
        stages.add(words);
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (c == '#' && word == null) {
                break;
            } else if (Character.isWhitespace(c) || c == '|') {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
                if (c == '|') {
                    words = new ArrayList<>();
                    stages.add(words);
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        for (List<String> stage : stages) {
            if (String.join(" ", stage).contains(marker)) {
                stage.removeIf(w -> w.equals("&") || w.startsWith("<") || w.startsWith(">") || w.startsWith("2>"));
                return stage;
            }
        }
        throw new IllegalArgumentException("no stage names " + marker + ": " + line);
    }
}
