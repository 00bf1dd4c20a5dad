/**
 * Authentication, both ways: of clients connecting to the pooler ({@link io.pgmux.proxy.auth.ClientAuthenticator},
 * by {@code trust}, {@code plain}, {@code md5} or {@code scram-sha-256} against an auth file in PgBouncer's
 * userlist.txt format) and of the pooler logging in to PostgreSQL
 * ({@link io.pgmux.proxy.auth.ServerLoginAuthenticator}). Both are state machines free of channels and
 * threads: the Netty handlers feed them messages and send what they return.
 *
 * <p>Secrets never appear in a log line, an exception message or a {@code toString()}; they are compared in
 * constant time. Only the JDK's crypto is used (HmacSHA256, SHA-256, MD5).
 */
package io.pgmux.proxy.auth;
