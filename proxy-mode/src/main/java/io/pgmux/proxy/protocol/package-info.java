/**
 * The PostgreSQL v3 wire protocol as the pooler needs it: framing decoders for both directions that pass
 * messages on as retained slices (no copy), parsers for the few message types the pooler must understand,
 * and encoders for the messages it originates. Message classes are named as in the "Message Formats"
 * section of the PostgreSQL protocol chapter.
 *
 * <p>Text on the wire is read and written as UTF-8. Where the pooler rewrites a client's message
 * ({@link io.pgmux.proxy.protocol.Parse#renameStatement}, {@link io.pgmux.proxy.protocol.Bind#renameStatement})
 * it copies the untouched bytes verbatim, so a client using another {@code client_encoding} still gets its
 * query text and parameters forwarded byte for byte.
 */
package io.pgmux.proxy.protocol;
