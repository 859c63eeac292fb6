package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class SnapshotStoreIdTest {
    @Test
    void anIdParsesBackToWhatMadeIt() {
        for (int i = 0; i < 1_000; i++) {
            // topic ids are URL-safe base64: '-' and '_' appear in about one id in ten
            SnapshotStoreId id = new SnapshotStoreId("my-app.v2", "word_counts-store", i % 17, Uuid.randomUuid());
            assertEquals(Optional.of(id), SnapshotStoreId.parse(id.toString()), id.toString());
        }
        Uuid dashed = Uuid.fromString("-AbCdEfGhIjKlMnOpQr_Aw");
        assertEquals(
                Optional.of(new SnapshotStoreId("app", "counts", 3, dashed)),
                SnapshotStoreId.parse("app/counts/3--AbCdEfGhIjKlMnOpQr_Aw"));
    }

    @Test
    void whatNoStoreMakesIsNotAnId() {
        for (String id : new String[] {
            "",
            "app/counts",
            "app/counts/3",
            "app/counts/x-AAAAAAAAAAAAAAAAAAAAAA",
            "app/counts/-1-AAAAAAAAAAAAAAAAAAAAAA",
            "app/counts/3-notanid",
            "/counts/3-AAAAAAAAAAAAAAAAAAAAAA",
            "a/b/c/3-AAAAAAAAAAAAAAAAAAAAAA"
        }) {
            assertTrue(SnapshotStoreId.parse(id).isEmpty(), id);
        }
    }
}
