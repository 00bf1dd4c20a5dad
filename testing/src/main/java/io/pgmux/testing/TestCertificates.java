package io.pgmux.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority and the certificates it signs, in PEM files in a directory of the
 * caller's, made with the JDK's {@code keytool} (so no other tool is needed): EC P-256 keys, valid for two
 * days. Private keys are unencrypted PKCS#8 PEM readable by their owner only, as PostgreSQL demands of its
 * {@code ssl_key_file}.
 */
public final class TestCertificates {
    private static final String STORE_PASSWORD = "changeit";
    private static final String CA_ALIAS = "ca";
    private static final long KEYTOOL_WAIT_SECONDS = 60;

    private final Path directory;
    private final Path caStore;
    private final Path caCertificate;

    private TestCertificates(Path directory) {
        this.directory = directory;
        this.caStore = directory.resolve("ca.p12");
        this.caCertificate = directory.resolve("ca.crt");
    }

    /** A new CA named {@code commonName}, its files in {@code directory}. */
    public static TestCertificates authority(Path directory, String commonName) {
        TestCertificates authority = new TestCertificates(directory);
        authority.keytool("-genkeypair", "-alias", CA_ALIAS, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=" + commonName, "-ext", "bc:c", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", authority.caStore.toString());
        authority.keytool("-exportcert", "-rfc", "-alias", CA_ALIAS, "-keystore", authority.caStore.toString(),
                "-file", authority.caCertificate.toString());
        return authority;
    }

    /** The CA's certificate (PEM), what a client verifying against this CA trusts. */
    public Path caCertificate() {
        return caCertificate;
    }

    /**
     * A certificate signed by this CA for {@code commonName}, with these subject alternative names in
     * keytool's syntax ({@code dns:localhost,ip:127.0.0.1}), or none when {@code subjectAltNames} is null.
     * Files {@code <name>.crt} and {@code <name>.key}.
     */
    public Issued issue(String name, String commonName, String subjectAltNames) {
        Path store = directory.resolve(name + ".p12");
        Path request = directory.resolve(name + ".csr");
        Path privateKey = directory.resolve(name + ".key");
        Path derPrivateKey = directory.resolve(name + ".pk8");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=" + commonName, "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString());
        keytool("-certreq", "-alias", name, "-keystore", store.toString(), "-file", request.toString());
        Path certificate = sign(name, request, subjectAltNames);
        writePrivateKey(store, name, privateKey, derPrivateKey);
        return new Issued(certificate, privateKey, derPrivateKey);
    }

    /**
     * A certificate signed by this CA for the key and subject of {@code request}, a PKCS#10 certificate request
     * made by another tool (so that the key can be in any form that tool writes), with these subject alternative
     * names as in {@link #issue}. File {@code <name>.crt}.
     */
    public Path sign(String name, Path request, String subjectAltNames) {
        Path certificate = directory.resolve(name + ".crt");
        List<String> sign = new ArrayList<>(List.of("-gencert", "-rfc", "-alias", CA_ALIAS, "-keystore",
                caStore.toString(), "-infile", request.toString(), "-outfile", certificate.toString(),
                "-validity", "2"));
        if (subjectAltNames != null) {
            sign.addAll(List.of("-ext", "SAN=" + subjectAltNames));
        }
        keytool(sign.toArray(String[]::new));
        return certificate;
    }

    /**
     * A certificate (PEM) and its private key, as PEM and as DER (PKCS#8 both, unencrypted, readable by their
     * owner only): pgjdbc's {@code sslkey} reads DER.
     */
    public record Issued(Path certificate, Path privateKey, Path derPrivateKey) {
    }

    private static void writePrivateKey(Path store, String alias, Path target, Path derTarget) {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(in, STORE_PASSWORD.toCharArray());
            Key key = keyStore.getKey(alias, STORE_PASSWORD.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            Files.writeString(target, pem, StandardCharsets.US_ASCII);
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
            Files.write(derTarget, key.getEncoded());
            Files.setPosixFilePermissions(derTarget, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + target, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not read the key of " + alias + " from " + store, e);
        }
    }

    private void keytool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        command.addAll(List.of("-storepass", STORE_PASSWORD, "-noprompt"));
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(KEYTOOL_WAIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + arguments[0] + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", arguments) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while keytool ran", e);
        }
    }
}
