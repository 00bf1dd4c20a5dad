/**
 * The admin console (PgBouncer's admin.c): the virtual database {@code pgbouncer}, alias {@code pgmux}, that
 * answers PgBouncer's SHOW commands with its column names, order and types, and its process-control commands,
 * over the simple query protocol. {@link io.pgmux.proxy.admin.AdminConsole} decides who may log in and runs the
 * commands; {@link io.pgmux.proxy.admin.AdminSession} is one logged-in console client.
 */
package io.pgmux.proxy.admin;
