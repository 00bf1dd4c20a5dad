/**
 * Named prepared statements in transaction and statement mode (PgBouncer's prepare.c): each client's names,
 * each server connection's statements under names of the pooler's own, and the requests in flight whose
 * responses the pooler must drop or answer itself.
 */
package io.pgmux.proxy.prepared;
