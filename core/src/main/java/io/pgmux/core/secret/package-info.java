/**
 * Secrets that change while a pool lives, shared by both faces: a file read again at each login
 * ({@link io.pgmux.core.secret.SecretFile}) and a command's output kept for a while
 * ({@link io.pgmux.core.secret.SecretCommand}).
 */
package io.pgmux.core.secret;
