package io.github.kernelarchive.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContentHashesTest {
  @TempDir Path dir;

  private ContentHashes reload(ContentHashes hashes) throws Exception {
    Path state = dir.resolve("state/file-hashes");
    hashes.save(state);
    return ContentHashes.load(state);
  }

  @Test
  void editsAreSeenAndTouchesDoNotMatter() throws Exception {
    Path header = Files.writeString(dir.resolve("k.h"), "#define K 1\n");
    Files.setLastModifiedTime(header, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    ContentHashes first = new ContentHashes();
    String before = first.of(header).orElseThrow();

    Files.writeString(header, "#define K 2\n"); // same size, new time
    ContentHashes second = reload(first);
    assertNotEquals(before, second.of(header).orElseThrow());
    assertEquals(Hashing.ofFile(header), second.of(header).orElseThrow());

    Files.setLastModifiedTime(header, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    assertEquals(Hashing.ofFile(header), reload(second).of(header).orElseThrow(), "a touch gives the same hash");
  }

  @Test
  void aFileHashedRightAfterItsLastEditIsReadAgainNextTime() throws Exception {
    // Written just now: its stamp is not trusted, so an edit that keeps size and timestamp is still seen.
    Path header = Files.writeString(dir.resolve("k.h"), "#define K 1\n");
    FileTime written = Files.getLastModifiedTime(header);
    ContentHashes first = new ContentHashes();
    String before = first.of(header).orElseThrow();
    Files.writeString(header, "#define K 7\n");
    Files.setLastModifiedTime(header, written);
    assertNotEquals(before, reload(first).of(header).orElseThrow());
  }

  /** A damaged, truncated or older state file costs one more read of each file, never a wrong hash. */
  @Test
  void aDamagedStateFileMeansReadingAgain() throws Exception {
    Path header = Files.writeString(dir.resolve("k.h"), "#define K 1\n");
    Files.setLastModifiedTime(header, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    Path state = dir.resolve("state/file-hashes");
    ContentHashes first = new ContentHashes();
    first.of(header);
    first.save(state);
    byte[] saved = Files.readAllBytes(state);
    assertTrue(ContentHashes.load(state).fromStamp(header).isPresent(), "a good file is used");

    Files.write(state, java.util.Arrays.copyOf(saved, saved.length - 10));
    assertTrue(ContentHashes.load(state).fromStamp(header).isEmpty(), "truncated");
    byte[] hugeCount = saved.clone();
    java.nio.ByteBuffer.wrap(hugeCount).putInt(8, Integer.MAX_VALUE);
    Files.write(state, hugeCount);
    assertTrue(ContentHashes.load(state).fromStamp(header).isEmpty(), "a count the file cannot hold");
    byte[] badLength = saved.clone();
    java.nio.ByteBuffer.wrap(badLength).putInt(12, -5);
    Files.write(state, badLength);
    assertTrue(ContentHashes.load(state).fromStamp(header).isEmpty(), "a negative path length");
    byte[] olderVersion = saved.clone();
    java.nio.ByteBuffer.wrap(olderVersion).putInt(4, 1);
    Files.write(state, olderVersion);
    assertTrue(ContentHashes.load(state).fromStamp(header).isEmpty(), "another version");
    assertEquals(Hashing.ofFile(header), ContentHashes.load(state).of(header).orElseThrow());
  }

  @Test
  void missingFilesHaveNoHash() {
    assertTrue(new ContentHashes().of(dir.resolve("gone.h")).isEmpty());
  }
}
