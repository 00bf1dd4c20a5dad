package io.pgmux.proxy.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * The PEM files of the client_tls_* and server_tls_* settings: certificates, read by the JDK, and private keys in
 * each unencrypted form OpenSSL writes ({@link PrivateKeyPem}), made into the JDK's own key objects. A file that
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
        PrivateKeyInfo keyInfo = PrivateKeyPem.read(setting, file);
        PublicKey publicKey = certificate.getPublicKey();
        PrivateKey key;
        try {
            key = new JcaPEMKeyConverter().getPrivateKey(keyInfo);
        } catch (PEMException e) {
            throw unusable(setting, file, "it is no " + publicKey.getAlgorithm() + " key, as the certificate in "
                    + certificateSetting.configName() + " needs: " + e.getMessage());
        }
        if (!signsFor(key, publicKey)) {
            throw new IllegalArgumentException(setting.configName() + " " + file + " is not the key of the"
                    + " certificate in " + certificateSetting.configName() + " " + certificateFile);
        }
        return key;
    }

    static IllegalArgumentException unusable(ProxySetting setting, Path file, String why) {
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
