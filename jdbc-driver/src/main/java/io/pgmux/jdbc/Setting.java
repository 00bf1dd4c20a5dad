package io.pgmux.jdbc;

/** One setting as the user wrote it: the name it was given under (which fixes its unit) and its text. */
record Setting(String name, String text) {
}
