package io.pgmux.jdbc.frameworks;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Version;

/** The entity of the Hibernate scenarios: its id from a sequence, its version for optimistic locking. */
@Entity
public class Account {
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "account_ids")
    @SequenceGenerator(name = "account_ids", sequenceName = "account_ids", allocationSize = 5)
    private Long id;

    @Version
    private int version;

    private String owner;

    private long balance;

    protected Account() {
    }

    Account(String owner, long balance) {
        this.owner = owner;
        this.balance = balance;
    }

    Long id() {
        return id;
    }

    long balance() {
        return balance;
    }

    void balance(long balance) {
        this.balance = balance;
    }
}
