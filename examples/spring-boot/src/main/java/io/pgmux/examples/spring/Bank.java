package io.pgmux.examples.spring;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Accounts and transfers between them, each transfer one transaction. */
@Service
public class Bank {
    private final JdbcTemplate jdbc;

    public Bank(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Starts over with {@code count} accounts of 100 each. */
    @Transactional
    public void open(int count) {
        jdbc.execute("CREATE TABLE IF NOT EXISTS example_account (id int PRIMARY KEY, balance int NOT NULL)");
        jdbc.update("TRUNCATE example_account");
        for (int id = 0; id < count; id++) {
            jdbc.update("INSERT INTO example_account VALUES (?, 100)", id);
        }
    }

    /** Moves {@code amount} from one account to another; both rows change or neither. */
    @Transactional
    public void transfer(int from, int to, int amount) {
        // Lock in id order so that two opposite transfers cannot deadlock.
        jdbc.queryForList("SELECT id FROM example_account WHERE id IN (?, ?) ORDER BY id FOR UPDATE", from, to);
        jdbc.update("UPDATE example_account SET balance = balance - ? WHERE id = ?", amount, from);
        jdbc.update("UPDATE example_account SET balance = balance + ? WHERE id = ?", amount, to);
    }

    public long total() {
        return jdbc.queryForObject("SELECT coalesce(sum(balance), 0) FROM example_account", Long.class);
    }
}
