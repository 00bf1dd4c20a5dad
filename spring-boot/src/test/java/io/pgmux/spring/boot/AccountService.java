package io.pgmux.spring.boot;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A service as applications write them: JdbcTemplate inside {@code @Transactional} methods. */
@Service
public class AccountService {
    /** The server backend and transaction a statement ran in. */
    public record ServerTransaction(int backendPid, long txid) {
    }

    private final JdbcTemplate jdbc;

    public AccountService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public ServerTransaction where() {
        return jdbc.queryForObject("SELECT pg_backend_pid(), txid_current()",
                (rs, row) -> new ServerTransaction(rs.getInt(1), rs.getLong(2)));
    }

    /** Two statements of one transaction. */
    @Transactional
    public ServerTransaction[] twoStatements() {
        return new ServerTransaction[] {where(), where()};
    }

    /** A transaction that stays open after its first statement until {@code proceed} opens. */
    @Transactional
    public ServerTransaction[] heldOpen(CountDownLatch started, CountDownLatch proceed) throws InterruptedException {
        ServerTransaction first = where();
        started.countDown();
        if (!proceed.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never told to proceed");
        }
        return new ServerTransaction[] {first, where()};
    }
}
