package io.pgmux.testing;

/**
 * How a test user's password is stored and which pg_hba.conf method the server demands of it over TCP.
 *
 * <p>Membership in {@link #groupRole()} is what selects the hba line, so the method is a property of the
 * user, not of the database: one test database can hold users of all three kinds.
 */
public enum PasswordMethod {
    SCRAM_SHA_256("scram-sha-256", "scram-sha-256", "pgmux_auth_scram", 10),
    MD5("md5", "md5", "pgmux_auth_md5", 5),
    /** Cleartext on the wire; stored as a SCRAM verifier, since PostgreSQL no longer stores plain text. */
    PASSWORD("password", "scram-sha-256", "pgmux_auth_password", 3);

    private final String hbaMethod;
    private final String passwordEncryption;
    private final String groupRole;
    private final int authenticationRequestCode;

    PasswordMethod(String hbaMethod, String passwordEncryption, String groupRole, int authenticationRequestCode) {
        this.hbaMethod = hbaMethod;
        this.passwordEncryption = passwordEncryption;
        this.groupRole = groupRole;
        this.authenticationRequestCode = authenticationRequestCode;
    }

    /** The method as written in pg_hba.conf. */
    public String hbaMethod() {
        return hbaMethod;
    }

    /** The {@code password_encryption} in force when the password is set. */
    public String passwordEncryption() {
        return passwordEncryption;
    }

    /** The NOLOGIN role whose members the hba line {@code host all +<groupRole> ... <hbaMethod>} matches. */
    public String groupRole() {
        return groupRole;
    }

    /**
     * The code of the AuthenticationRequest message the server sends for this method
     * (AuthenticationSASL = 10, AuthenticationMD5Password = 5, AuthenticationCleartextPassword = 3).
     */
    public int authenticationRequestCode() {
        return authenticationRequestCode;
    }
}
