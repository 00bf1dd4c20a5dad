/**
 * Session parameters (PgBouncer's varcache.c): what each client expects to find set on whatever server
 * connection it gets, what each server connection has reported or been given, the values reported to a pool's
 * new clients, and the replay that makes a server match its client.
 */
package io.pgmux.proxy.parameters;
