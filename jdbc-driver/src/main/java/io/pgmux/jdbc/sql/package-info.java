/**
 * Classification of SQL text for the pool: which statements pin a logical connection to its server
 * connection, and which control transactions. Entry point: {@link io.pgmux.jdbc.sql.SqlClassifier}.
 */
package io.pgmux.jdbc.sql;
