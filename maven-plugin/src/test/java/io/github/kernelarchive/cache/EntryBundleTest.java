package io.github.kernelarchive.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wire form of an entry: exact lengths, the right key, nothing else accepted. */
class EntryBundleTest {
  private static final String KEY = "ab".repeat(32);

  @TempDir Path dir;

  private byte[] bundle(EntryKind kind, String key, byte[] manifest, byte[] payload) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(EntryBundle.header(kind, key, manifest.length, payload.length));
    out.write(manifest);
    out.write(payload);
    return out.toByteArray();
  }

  private CacheEntry unpack(byte[] blob, EntryKind kind) throws IOException {
    Path staging = Files.createTempDirectory(dir, "staging");
    Path file = Files.write(dir.resolve("blob" + System.nanoTime()), blob);
    CacheEntry entry = new CacheEntry(kind, KEY, staging);
    EntryBundle.unpack(file, kind, KEY, entry);
    return entry;
  }

  @Test
  void aBundleUnpacksToItsManifestAndPayload() throws Exception {
    byte[] manifest = "kernel-archive content manifest 1\nkey\tk\n".getBytes();
    byte[] payload = new byte[100_000];
    Arrays.fill(payload, (byte) 7);
    CacheEntry entry = unpack(bundle(EntryKind.OBJECT, KEY, manifest, payload), EntryKind.OBJECT);
    assertArrayEquals(manifest, Files.readAllBytes(entry.manifest()));
    assertArrayEquals(payload, Files.readAllBytes(entry.payload()));
  }

  @Test
  void truncatedOversizedForeignAndMisaddressedBodiesAreRefused() throws Exception {
    byte[] good = bundle(EntryKind.OBJECT, KEY, "m".getBytes(), new byte[64]);
    assertRefused(Arrays.copyOf(good, good.length - 1), EntryKind.OBJECT, "truncated body");
    assertRefused(Arrays.copyOf(good, good.length + 1), EntryKind.OBJECT, "oversized body");
    assertRefused("<html>404</html>".getBytes(), EntryKind.OBJECT, "not a cache entry");
    assertRefused(good, EntryKind.ARCHIVE, "not the one asked for");
    assertRefused(bundle(EntryKind.OBJECT, "cd".repeat(32), "m".getBytes(), new byte[1]), EntryKind.OBJECT,
        "not the one asked for");
    byte[] huge = ("kernel-archive entry 1\nobjects\n" + KEY + "\n1\n1152921504606846976\nm").getBytes();
    assertRefused(huge, EntryKind.OBJECT, "truncated body"); // a 2^60-byte claim allocates nothing
  }

  private void assertRefused(byte[] blob, EntryKind kind, String words) {
    IOException e = assertThrows(IOException.class, () -> unpack(blob, kind));
    assertTrue(e.getMessage().contains(words), e.getMessage());
  }

  @Test
  void userInfoIsRedactedFromEveryUrl() {
    assertEquals("see http://cache:8080/x and https://h/y",
        RemoteCache.redact("see http://ci:pa55@cache:8080/x and https://token@h/y"));
    RemoteCache.Settings settings = new RemoteCache.Settings("http://u:secret@h/c", "Basic xyz", "s", true,
        java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1));
    assertTrue(!settings.toString().contains("secret") && !settings.toString().contains("xyz"), settings.toString());
  }
}
