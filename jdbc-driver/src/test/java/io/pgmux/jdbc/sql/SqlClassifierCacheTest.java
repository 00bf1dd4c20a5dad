package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SqlClassifierCacheTest {

    /** Several statements give a classification that is not one of the shared instances. */
    private static final String TRANSACTION_BLOCK = "BEGIN; SET search_path = app; COMMIT";

    @Test
    void sameTextReturnsTheCachedInstance() {
        SqlClassifier classifier = new SqlClassifier();
        Classification first = classifier.classify(TRANSACTION_BLOCK);
        assertSame(first, classifier.classify(new String(TRANSACTION_BLOCK.toCharArray())));
        assertEquals(1, classifier.cachedTexts());
    }

    @Test
    void textsSharingTheTableOfRecentTextsEachKeepTheirOwnClassification() {
        SqlClassifier classifier = new SqlClassifier();
        SqlClassifier uncached = new SqlClassifier(0, 0);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            texts.add(i % 2 == 0 ? "SET application_name = 'a" + i + "'" : "SELECT " + i + "; COMMIT");
        }
        for (int round = 0; round < 3; round++) {
            for (String text : texts) {
                String copy = round == 1 ? new String(text.toCharArray()) : text;
                assertEquals(uncached.classify(text), classifier.classify(copy), text);
            }
        }
    }

    @Test
    void textLongerThanTheBoundIsClassifiedButNotCached() {
        SqlClassifier classifier = new SqlClassifier(16, TRANSACTION_BLOCK.length() - 1);
        Classification first = classifier.classify(TRANSACTION_BLOCK);
        Classification second = classifier.classify(TRANSACTION_BLOCK);
        assertEquals(first, second);
        assertNotSame(first, second);
        assertEquals(PinReason.SESSION_SET, first.pinReason());
        assertEquals(0, classifier.cachedTexts());
    }

    @Test
    void textAtTheBoundIsCached() {
        SqlClassifier classifier = new SqlClassifier(16, TRANSACTION_BLOCK.length());
        assertSame(classifier.classify(TRANSACTION_BLOCK), classifier.classify(TRANSACTION_BLOCK));
    }

    @Test
    void cacheHoldsAtMostItsSize() {
        SqlClassifier classifier = new SqlClassifier(8, 4096);
        for (int i = 0; i < 200; i++) {
            classifier.classify("SELECT " + i);
        }
        assertTrue(classifier.cachedTexts() <= 8, "cached " + classifier.cachedTexts());
    }

    @Test
    void disabledCacheStillClassifies() {
        SqlClassifier classifier = new SqlClassifier(0, 4096);
        assertEquals(PinReason.LISTEN, classifier.classify("LISTEN jobs").pinReason());
        assertEquals(PinReason.LISTEN, classifier.classify("LISTEN jobs").pinReason());
    }

    @Test
    void plainTextGetsTheSharedPlainInstance() {
        assertSame(Classification.PLAIN, new SqlClassifier(0, 0).classify("SELECT * FROM orders WHERE id = ?"));
    }

    @Test
    void singleStatementResultsAreSharedWithoutTheCache() {
        SqlClassifier uncached = new SqlClassifier(0, 0);
        assertSame(uncached.classify("SET search_path = a"), uncached.classify("RESET ALL"));
    }

    @Test
    void negativeCacheSizeIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SqlClassifier(-1, 10));
        assertTrue(e.getMessage().contains("cacheSize"));
    }

    @Test
    void negativeLengthBoundIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SqlClassifier(10, -1));
        assertTrue(e.getMessage().contains("maxCachedSqlLength"));
    }
}
