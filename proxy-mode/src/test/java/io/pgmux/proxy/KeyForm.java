package io.pgmux.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The PEM forms in which operators have TLS private keys, each written by {@code openssl} as an operator would
 * make it, with the first line that tells the form. Throwaway keys in the caller's directory, never committed.
 */
public enum KeyForm {
    PKCS1_RSA("-----BEGIN RSA PRIVATE KEY-----", "genrsa", "-traditional", "-out", "{key}", "2048"),
    SEC1_EC_AFTER_PARAMETERS("-----BEGIN EC PARAMETERS-----", "ecparam", "-name", "prime256v1", "-genkey",
            "-out", "{key}"),
    SEC1_EC("-----BEGIN EC PRIVATE KEY-----", "ecparam", "-name", "prime256v1", "-genkey", "-noout",
            "-out", "{key}"),
    PKCS8_RSA("-----BEGIN PRIVATE KEY-----", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
            "-out", "{key}"),
    PKCS8_EC("-----BEGIN PRIVATE KEY-----", "genpkey", "-algorithm", "EC", "-pkeyopt",
            "ec_paramgen_curve:P-256", "-out", "{key}"),
    ENCRYPTED_PKCS8("-----BEGIN ENCRYPTED PRIVATE KEY-----", "genpkey", "-algorithm", "EC", "-pkeyopt",
            "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:" + KeyForm.PASSPHRASE, "-out", "{key}"),
    /** The legacy OpenSSL encryption of a PKCS#1 key, with {@code Proc-Type: 4,ENCRYPTED}. */
    ENCRYPTED_PKCS1("-----BEGIN RSA PRIVATE KEY-----", "genrsa", "-traditional", "-aes256", "-passout",
            "pass:" + KeyForm.PASSPHRASE, "-out", "{key}", "2048");

    static final String PASSPHRASE = "not-a-secret";
    private static final long OPENSSL_WAIT_SECONDS = 60;

    private final String firstLine;
    private final List<String> generate;

    KeyForm(String firstLine, String... generate) {
        this.firstLine = firstLine;
        this.generate = List.of(generate);
    }

    /** A new key in this form, in file {@code key}. */
    public Path write(Path key) {
        openssl(generate.stream().map(a -> a.replace("{key}", key.toString())).toList());
        try {
            String first = Files.readAllLines(key, StandardCharsets.US_ASCII).get(0);
            if (!first.equals(firstLine)) {
                throw new IllegalStateException("openssl wrote " + first + " for " + this + ", not " + firstLine);
            }
        } catch (IOException e) {
            throw new IllegalStateException("openssl wrote no " + key, e);
        }
        return key;
    }

    /** A PKCS#10 request for a certificate of {@code commonName} for the (unencrypted) key in {@code key}. */
    public static Path request(Path key, String commonName, Path request) {
        openssl(List.of("req", "-new", "-key", key.toString(), "-subj", "/CN=" + commonName, "-out",
                request.toString()));
        return request;
    }

    private static void openssl(List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(arguments);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(OPENSSL_WAIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("openssl " + arguments.get(0) + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run openssl", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while openssl ran", e);
        }
    }
}
