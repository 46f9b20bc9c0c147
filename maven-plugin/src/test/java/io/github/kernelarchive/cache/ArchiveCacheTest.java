package io.github.kernelarchive.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveCacheTest {
  @TempDir Path dir;

  private static String key(char c) {
    return String.valueOf(c).repeat(64);
  }

  private Manifest manifest(String key) {
    return new Manifest(key, "k", "sha", "llvm-ar", List.of(new Manifest.Member("a\tb %.o", "h",
        List.of(new Manifest.Header("include/x y.h", "hh")))));
  }

  private Path archiveOf(int bytes) throws Exception {
    return Files.write(dir.resolve("a" + bytes + ".a"), new byte[bytes]);
  }

  @Test
  void publishFindAndDiscard() throws Exception {
    ArchiveCache cache = new ArchiveCache(dir.resolve("cache"), Long.MAX_VALUE);
    assertTrue(cache.find(key('a')).isEmpty());
    assertTrue(cache.publish(key('a'), archiveOf(10), manifest(key('a'))));
    ArchiveCache.Entry entry = cache.find(key('a')).orElseThrow();
    assertEquals(manifest(key('a')), Manifest.read(entry.manifest()), "manifest fields survive escaping");
    assertFalse(cache.publish(key('a'), archiveOf(10), manifest(key('a'))), "the first publisher wins");
    cache.discard(entry);
    assertTrue(cache.find(key('a')).isEmpty());
    try (var leftovers = Files.list(dir.resolve("cache/v2/tmp"))) {
      assertEquals(0, leftovers.count(), "no temporary leftovers");
    }
  }

  @Test
  void leastRecentlyUsedEntriesAreEvictedFirst() throws Exception {
    ArchiveCache cache = new ArchiveCache(dir.resolve("cache"), 2_500);
    long now = System.currentTimeMillis();
    for (char c : new char[] {'a', 'b', 'c'}) {
      cache.publish(key(c), archiveOf(1_000), manifest(key(c)));
    }
    Files.setLastModifiedTime(cache.find(key('a')).orElseThrow().manifest(), FileTime.fromMillis(now - 30_000));
    Files.setLastModifiedTime(cache.find(key('b')).orElseThrow().manifest(), FileTime.fromMillis(now - 20_000));
    Files.setLastModifiedTime(cache.find(key('c')).orElseThrow().manifest(), FileTime.fromMillis(now - 10_000));
    cache.touch(cache.find(key('a')).orElseThrow()); // a is now the most recently used

    // Three entries of about 1,100 bytes under a 2,500-byte cap: one must go, the least recently used.
    assertEquals(1, cache.evict(key('c')));
    assertTrue(cache.find(key('b')).isEmpty(), "b was least recently used");
    assertTrue(cache.find(key('a')).isPresent(), "a was used last");
    assertTrue(cache.find(key('c')).isPresent());

    // Under a cap that fits one entry, the one in use stays even though it is not the newest.
    assertEquals(1, new ArchiveCache(dir.resolve("cache"), 1_500).evict(key('c')));
    assertTrue(cache.find(key('c')).isPresent() && cache.find(key('a')).isEmpty());
  }
}
