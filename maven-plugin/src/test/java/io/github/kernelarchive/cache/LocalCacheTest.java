package io.github.kernelarchive.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalCacheTest {
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
    LocalCache cache = new LocalCache(dir.resolve("cache"), Long.MAX_VALUE);
    assertTrue(cache.find(EntryKind.ARCHIVE, key('a')).isEmpty());
    assertTrue(cache.publish(EntryKind.ARCHIVE, key('a'), archiveOf(10), manifest(key('a')).toBytes()));
    CacheEntry entry = cache.find(EntryKind.ARCHIVE, key('a')).orElseThrow();
    assertEquals(manifest(key('a')), Manifest.read(entry.manifest()), "manifest fields survive escaping");
    assertTrue(cache.find(EntryKind.OBJECT, key('a')).isEmpty(), "kinds do not share keys");
    assertFalse(cache.publish(EntryKind.ARCHIVE, key('a'), archiveOf(10), manifest(key('a')).toBytes()),
        "the first publisher wins");
    cache.discard(entry);
    assertTrue(cache.find(EntryKind.ARCHIVE, key('a')).isEmpty());
    try (var leftovers = Files.list(dir.resolve("cache/v3/tmp"))) {
      assertEquals(0, leftovers.count(), "no temporary leftovers");
    }
  }

  @Test
  void leastRecentlyUsedEntriesOfEveryKindAreEvictedFirst() throws Exception {
    LocalCache cache = new LocalCache(dir.resolve("cache"), 2_500);
    long now = System.currentTimeMillis();
    cache.publish(EntryKind.ARCHIVE, key('a'), archiveOf(1_000), manifest(key('a')).toBytes());
    cache.publish(EntryKind.OBJECT, key('b'), archiveOf(1_000), manifest(key('b')).toBytes());
    cache.publish(EntryKind.BATCH, key('c'), archiveOf(1_000), manifest(key('c')).toBytes());
    CacheEntry a = cache.find(EntryKind.ARCHIVE, key('a')).orElseThrow();
    CacheEntry b = cache.find(EntryKind.OBJECT, key('b')).orElseThrow();
    CacheEntry c = cache.find(EntryKind.BATCH, key('c')).orElseThrow();
    Files.setLastModifiedTime(a.manifest(), FileTime.fromMillis(now - 30_000));
    Files.setLastModifiedTime(b.manifest(), FileTime.fromMillis(now - 20_000));
    Files.setLastModifiedTime(c.manifest(), FileTime.fromMillis(now - 10_000));
    cache.touch(a); // a is now the most recently used

    // Three entries of about 1,100 bytes under a 2,500-byte cap: one must go, the least recently used.
    assertEquals(1, cache.evict(Set.of(c)));
    assertTrue(cache.find(EntryKind.OBJECT, key('b')).isEmpty(), "b was least recently used");
    assertTrue(cache.find(EntryKind.ARCHIVE, key('a')).isPresent(), "a was used last");
    assertTrue(cache.find(EntryKind.BATCH, key('c')).isPresent());

    // Under a cap that fits one entry, the one in use stays even though it is not the newest.
    assertEquals(1, new LocalCache(dir.resolve("cache"), 1_500).evict(Set.of(c)));
    assertTrue(cache.find(EntryKind.BATCH, key('c')).isPresent() && cache.find(EntryKind.ARCHIVE, key('a')).isEmpty());
  }

  @Test
  void manifestsThatNameFilesOutsideTheProjectAreRejected() throws Exception {
    for (String member : List.of("../x.o", "/etc/passwd", "a/b.o", "..", "")) {
      Path file = Files.write(dir.resolve("m"), new Manifest(key('a'), "k", "d", "ar",
          List.of(new Manifest.Member(member, "h", List.of()))).toBytes());
      IOException e = assertThrows(IOException.class, () -> Manifest.read(file), member);
      assertTrue(e.getMessage().contains("not a plain file name"), e.getMessage());
    }
    for (String header : List.of("../../etc/passwd", "include/../../x.h")) {
      Path file = Files.write(dir.resolve("c"), new ContentManifest(key('a'), "s",
          List.of(new Manifest.Header(header, "h"))).toBytes());
      IOException e = assertThrows(IOException.class, () -> ContentManifest.read(file), header);
      assertTrue(e.getMessage().contains("leaves the project"), e.getMessage());
    }
    Path fine = Files.write(dir.resolve("ok"), new ContentManifest(key('a'), "s",
        List.of(new Manifest.Header("/usr/include/stdio.h", "h"), new Manifest.Header("include/../k.h", "h")))
        .toBytes());
    assertEquals(2, ContentManifest.read(fine).headers().size(), "system headers and in-project paths are fine");
  }
}
