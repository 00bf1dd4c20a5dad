package io.pgmux.jdbc;

import io.pgmux.core.config.PoolConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What makes two driver connections share a pool: the same pgjdbc URL and properties (the password
 * compared by its SHA-256, so the key holds no secret) and the same settings, however they were spelt and
 * whether or not a default was written out.
 */
record PoolIdentity(String targetUrl, Map<String, String> driverProperties, Map<String, String> settings) {

    static PoolIdentity of(ConnectionUrl url, PoolConfig config, Map<DriverProperty, Object> driverValues) {
        Properties props = url.driverProperties();
        Map<String, String> driver = new TreeMap<>();
        for (String name : props.stringPropertyNames()) {
            String value = props.getProperty(name);
            driver.put(name, "password".equals(name) ? sha256(value) : value);
        }
        Map<String, String> settings = new TreeMap<>(config.describe());
        for (DriverProperty property : DriverProperty.values()) {
            Object value = driverValues.get(property);
            if (value == null) {
                value = property.defaultValue();
            }
            if (value != null) {
                settings.put(property.propertyName(), String.valueOf(value));
            }
        }
        return new PoolIdentity(url.targetUrl(), Map.copyOf(driver), Map.copyOf(settings));
    }

    private static String sha256(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return "sha256:" + HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "PoolIdentity[" + ConnectionUrl.masked(targetUrl) + ", " + settings + "]";
    }
}
