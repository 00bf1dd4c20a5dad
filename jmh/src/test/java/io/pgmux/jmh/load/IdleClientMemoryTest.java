package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class IdleClientMemoryTest {

    @Test
    void perClientFiguresAreTheGrowthWhileIdleDividedByTheClients() {
        MemoryReading before = new MemoryReading(1_000, 100, 200);
        MemoryReading idle = new MemoryReading(9_000, 100, 1_200);
        MemoryReading gone = new MemoryReading(1_100, 100, 200);
        String table = IdleClientMemory.table(before, idle, gone, 4).toString();
        assertEquals("| **per idle client**     | **2,000 B**        | **0 B**                    | **250 B**    |",
                table.lines().reduce((first, second) -> second).orElseThrow());
    }
}
