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

  /**
   * A hash the archive stage took itself stands for the file while its size and time are the ones
   * it was taken at, in this build and the next; once they move, the file is read.
   */
  @Test
  void aRememberedHashHoldsWhileTheFileKeepsItsSizeAndTime() throws Exception {
    Path object = Files.writeString(dir.resolve("k.o"), "object bytes\n");
    long modified = System.currentTimeMillis() - 60_000;
    Files.setLastModifiedTime(object, FileTime.fromMillis(modified));
    ContentHashes hashes = new ContentHashes();
    // Not the file's hash: what comes back was not read from it.
    String taken = "a".repeat(64);
    hashes.remember(object, taken, Files.size(object), modified);
    assertEquals(taken, hashes.fromStamp(object).orElseThrow());
    assertEquals(taken, hashes.of(object).orElseThrow());
    assertEquals(taken, reload(hashes).of(object).orElseThrow(), "saved for the next build");

    ContentHashes moved = new ContentHashes();
    moved.remember(object, taken, Files.size(object), modified);
    Files.setLastModifiedTime(object, FileTime.fromMillis(modified + 1_000));
    assertTrue(moved.fromStamp(object).isEmpty(), "another time: no stamp stands for it");
    assertEquals(Hashing.ofFile(object), moved.of(object).orElseThrow());
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

  /**
   * A build that learns no stamp writes no file: loaded, then asked for some of its files (or all),
   * the file stays as it was; a stamp it does not hold (a file read anew, or one of its own used
   * only after a save that left it out) is written.
   */
  @Test
  void aSaveWritesOnlyWhatTheFileDoesNotHold() throws Exception {
    FileTime longAgo = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
    Path a = Files.writeString(dir.resolve("a.h"), "#define A 1\n");
    Path b = Files.writeString(dir.resolve("b.h"), "#define B 1\n");
    Path c = Files.writeString(dir.resolve("c.h"), "#define C 1\n");
    for (Path header : new Path[] {a, b, c}) {
      Files.setLastModifiedTime(header, longAgo);
    }
    Path state = dir.resolve("state/file-hashes");
    ContentHashes first = new ContentHashes();
    first.of(a);
    first.of(b);
    first.save(state);
    FileTime saved = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(state, saved);

    ContentHashes again = ContentHashes.load(state);
    again.of(a);
    again.save(state);
    assertEquals(saved, Files.getLastModifiedTime(state), "one of its own stamps in use: not written");
    again.of(b);
    again.save(state);
    assertEquals(saved, Files.getLastModifiedTime(state), "all of its own stamps in use: not written");
    assertTrue(ContentHashes.load(state).fromStamp(b).isPresent());
    Path elsewhere = dir.resolve("other/file-hashes");
    again.save(elsewhere);
    assertTrue(ContentHashes.load(elsewhere).fromStamp(b).isPresent(), "another file is written");

    ContentHashes third = ContentHashes.load(state);
    third.of(a);
    third.save(state);
    third.of(c); // read anew
    third.save(state);
    assertNotEquals(saved, Files.getLastModifiedTime(state), "a new stamp is written");
    ContentHashes fourth = ContentHashes.load(state);
    assertTrue(fourth.fromStamp(a).isPresent() && fourth.fromStamp(c).isPresent());

    Path d = Files.writeString(dir.resolve("d.h"), "#define D 1\n");
    Files.setLastModifiedTime(d, longAgo);
    fourth.of(a);
    fourth.of(d); // read anew: the save writes a and d, leaving c out
    fourth.save(state);
    fourth.of(c);
    fourth.save(state);
    assertTrue(ContentHashes.load(state).fromStamp(c).isPresent(), "a stamp of its own used after a save is kept");
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
