package io.github.kernelarchive.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.pipeline.RecordingLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared tier is any {@link Storage}: here a second cache directory (a folder several
 * machines mount) serves two builds with local caches of their own, with no class beyond the
 * local one: the first build's entries go up at its end, the second build takes them, verified,
 * into its own local cache; a damaged shared entry is refused and never reaches the second build.
 */
class SharedDirectoryTierTest {
  @TempDir Path dir;

  private static final String KEY = "ab".repeat(32);

  @Test
  void aSecondDirectoryServesAsTheSharedTier() throws Exception {
    LocalCache shared = new LocalCache(dir.resolve("shared"), Long.MAX_VALUE);
    Path payload = Files.writeString(dir.resolve("payload.o"), "object bytes");

    BuildCache first = new BuildCache(new LocalCache(dir.resolve("first"), Long.MAX_VALUE), shared, new RecordingLog());
    first.store(EntryKind.OBJECT, KEY, payload, "manifest\n".getBytes());
    first.finish();
    assertTrue(shared.find(EntryKind.OBJECT, KEY).isPresent(), "uploaded at the end of the build");

    LocalCache secondLocal = new LocalCache(dir.resolve("second"), Long.MAX_VALUE);
    BuildCache second = new BuildCache(secondLocal, shared, new RecordingLog());
    Optional<CacheEntry> found = second.find(EntryKind.OBJECT, KEY, "object k.o",
        entry -> Files.readString(entry.payload()).equals("object bytes") ? BuildCache.Verdict.USABLE
            : BuildCache.Verdict.corrupt("payload differs"));
    assertTrue(found.isPresent());
    assertTrue(found.get().directory().startsWith(dir.resolve("second")), "kept in the second build's own cache");
    assertEquals(1, second.stats().remoteHits());

    // A damaged shared entry: refused, not copied, reported.
    Files.writeString(shared.find(EntryKind.OBJECT, KEY).get().payload(), "tampered");
    LocalCache thirdLocal = new LocalCache(dir.resolve("third"), Long.MAX_VALUE);
    RecordingLog log = new RecordingLog();
    BuildCache third = new BuildCache(thirdLocal, shared, log);
    assertFalse(third.find(EntryKind.OBJECT, KEY, "object k.o",
        entry -> Files.readString(entry.payload()).equals("object bytes") ? BuildCache.Verdict.USABLE
            : BuildCache.Verdict.corrupt("payload differs")).isPresent());
    assertFalse(thirdLocal.find(EntryKind.OBJECT, KEY).isPresent());
  }
}
