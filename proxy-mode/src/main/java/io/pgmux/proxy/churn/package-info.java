/**
 * The connection-churn report: reads PostgreSQL server logs written with {@code log_connections} and
 * {@code log_disconnections} and tells how often clients connect, how long their sessions last, who connects
 * most, and what pooling would do about it.
 */
package io.pgmux.proxy.churn;
