package io.pgmux.core.config;

/** A configuration value that cannot be used; the message names the setting and says what is expected. */
public class ConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String setting;

    public ConfigException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    /** The name of the offending setting as the user wrote it. */
    public String setting() {
        return setting;
    }
}
