package io.pgmux.proxy.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * The private key of a client_tls_key_file or server_tls_key_file in the PEM forms OpenSSL, and so PgBouncer,
 * reads: PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) and SEC1
 * ({@code BEGIN EC PRIVATE KEY}, after an {@code EC PARAMETERS} block or not). Other blocks before the key, such
 * as certificates, are passed over, as OpenSSL does. BouncyCastle's PEMParser reads them: the JDK reads PKCS#8
 * only, and a maintained parser beats an ASN.1 reader of our own. An encrypted key is refused: PgBouncer has no
 * setting for its passphrase (OpenSSL asks for it on the terminal) and a server started by a service manager has
 * none to ask on.
 */
final class PrivateKeyPem {
    private static final String FORMS = "PKCS#8 (BEGIN PRIVATE KEY), PKCS#1 (BEGIN RSA PRIVATE KEY) or SEC1"
            + " (BEGIN EC PRIVATE KEY)";

    private PrivateKeyPem() {
    }

    /** The first private key in {@code file}, the value of {@code setting}. */
    static PrivateKeyInfo read(ProxySetting setting, Path file) {
        String pem;
        try {
            // every byte maps to a char: what is not PEM is refused by the parser, not by the decoder
            pem = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting.configName() + " " + file + " does not exist or cannot be read",
                    e);
        }
        Object block = firstKeyBlock(setting, file, pem);
        if (block instanceof PrivateKeyInfo key) {
            return key;
        }
        if (block instanceof PEMKeyPair pair) {
            return pair.getPrivateKeyInfo();
        }
        if (block instanceof PKCS8EncryptedPrivateKeyInfo) {
            throw encrypted(setting, file, "BEGIN ENCRYPTED PRIVATE KEY");
        }
        if (block instanceof PEMEncryptedKeyPair) {
            throw encrypted(setting, file, "Proc-Type: 4,ENCRYPTED");
        }
        throw PemFiles.unusable(setting, file, "it holds no private key in " + FORMS + " form");
    }

    /** The first block of {@code pem} that is a private key, encrypted or not; null when there is none. */
    private static Object firstKeyBlock(ProxySetting setting, Path file, String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object block = parser.readObject();
            while (block != null && !(block instanceof PrivateKeyInfo || block instanceof PEMKeyPair
                    || block instanceof PKCS8EncryptedPrivateKeyInfo || block instanceof PEMEncryptedKeyPair)) {
                block = parser.readObject();
            }
            return block;
        } catch (IOException | IllegalStateException | IllegalArgumentException e) {
            // an unknown block type, bad base64 or a key whose ASN.1 is broken
            throw PemFiles.unusable(setting, file, "it holds no private key in " + FORMS + " form: " + e.getMessage());
        }
    }

    private static IllegalArgumentException encrypted(ProxySetting setting, Path file, String form) {
        return PemFiles.unusable(setting, file, "the key is encrypted (" + form + ") and pgmux, like PgBouncer, has"
                + " no setting for its passphrase: store it unencrypted, e.g. openssl pkey -in " + file
                + " -out <new file>");
    }
}
