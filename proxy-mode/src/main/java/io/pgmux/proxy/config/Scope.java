package io.pgmux.proxy.config;

/** Where a {@link ProxySetting} is written: the {@code [pgbouncer]} section, a {@code [databases]} or a {@code [users]} entry. */
public enum Scope { GLOBAL, DATABASE, USER }
