package io.pgmux.proxy.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * The PEM files of the client_tls_* and server_tls_* settings, read with the JDK's own parsers: certificates,
 * and keys in unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}), the form Netty's JDK provider takes. A file that
 * cannot be used is refused naming its setting.
 */
public final class PemFiles {
    private PemFiles() {
    }

    /** The certificates in {@code file}, which holds at least one. */
    public static List<X509Certificate> certificates(ProxySetting setting, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in)
                    .stream().map(X509Certificate.class::cast).toList();
            if (certificates.isEmpty()) {
                throw unusable(setting, file, "it holds no certificate");
            }
            return certificates;
        } catch (IOException e) {
            throw new IllegalArgumentException(setting.configName() + " " + file + " does not exist or cannot be read",
                    e);
        } catch (GeneralSecurityException e) {
            throw unusable(setting, file, "it is no PEM certificate: " + e.getMessage());
        }
    }

    /**
     * The key in {@code file}, which must be the key of {@code certificate}, the first in {@code certificateFile}
     * (of {@code certificateSetting}).
     */
    public static PrivateKey keyOf(X509Certificate certificate, ProxySetting certificateSetting, Path certificateFile,
            ProxySetting setting, Path file) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting.configName() + " " + file + " does not exist or cannot be read",
                    e);
        }
        String begin = "-----BEGIN PRIVATE KEY-----";
        String end = "-----END PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw unusable(setting, file, "it is no unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY); convert it with"
                    + " openssl pkcs8 -topk8 -nocrypt");
        }
        PublicKey publicKey = certificate.getPublicKey();
        PrivateKey key;
        try {
            byte[] der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
            key = KeyFactory.getInstance(publicKey.getAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw unusable(setting, file, "it is no " + publicKey.getAlgorithm() + " key, as the certificate in "
                    + certificateSetting.configName() + " needs: " + e.getMessage());
        }
        if (!signsFor(key, publicKey)) {
            throw new IllegalArgumentException(setting.configName() + " " + file + " is not the key of the"
                    + " certificate in " + certificateSetting.configName() + " " + certificateFile);
        }
        return key;
    }

    private static IllegalArgumentException unusable(ProxySetting setting, Path file, String why) {
        return new IllegalArgumentException("cannot use " + setting.configName() + " " + file + ": " + why);
    }

    /** Whether {@code key} signs what {@code publicKey} verifies. */
    private static boolean signsFor(PrivateKey key, PublicKey publicKey) {
        String algorithm = switch (publicKey.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "DSA" -> "SHA256withDSA";
            default -> publicKey.getAlgorithm(); // Ed25519, Ed448, EdDSA name their signature alike
        };
        try {
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
