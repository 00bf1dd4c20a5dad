package io.pgmux.examples.spring;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.jdbc.metadata.CompositeDataSourcePoolMetadataProvider;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadata;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.stereotype.Component;

/** At start, runs random transfers from many threads and reports what the pool did. */
@Component
public class TransferRun implements ApplicationRunner {
    private static final Logger log = LoggerFactory.getLogger(TransferRun.class);

    private final Bank bank;
    private final DataSource dataSource;
    private final DataSourcePoolMetadataProvider poolMetadata;
    private final MeterRegistry meters;
    private final int accounts;
    private final int transfers;
    private final int threads;
    private volatile long totalAfter = -1;

    public TransferRun(Bank bank, DataSource dataSource, List<DataSourcePoolMetadataProvider> poolMetadata,
                       MeterRegistry meters, @Value("${example.accounts}") int accounts,
                       @Value("${example.transfers}") int transfers, @Value("${example.threads}") int threads) {
        this.bank = bank;
        this.dataSource = dataSource;
        this.poolMetadata = new CompositeDataSourcePoolMetadataProvider(poolMetadata);
        this.meters = meters;
        this.accounts = accounts;
        this.transfers = transfers;
        this.threads = threads;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        bank.open(accounts);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < transfers; i++) {
                done.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    int from = random.nextInt(accounts);
                    bank.transfer(from, (from + 1 + random.nextInt(accounts - 1)) % accounts, random.nextInt(1, 10));
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        totalAfter = bank.total();
        DataSourcePoolMetadata metadata = poolMetadata.getDataSourcePoolMetadata(dataSource);
        log.info("{} transfers from {} threads over at most {} server connections; money before {}, after {}",
                transfers, threads, metadata.getMax(), 100L * accounts, totalAfter);
        log.info("pgmux.transactions {} pgmux.connections.creation (server logins) {}",
                meters.get("pgmux.transactions").functionCounter().count(),
                meters.get("pgmux.connections.creation").timer().count());
    }

    /** The sum of all balances after the run (-1 before it finished): transfers never change it. */
    public long totalAfter() {
        return totalAfter;
    }
}
