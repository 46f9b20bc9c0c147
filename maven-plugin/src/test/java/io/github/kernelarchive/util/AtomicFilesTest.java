package io.github.kernelarchive.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @TempDir Path dir;

  /** The same bytes leave the file alone (its time and inode); other bytes, or none there, write it. */
  @Test
  void writeIfChangedWritesOnlyOtherBytes() throws Exception {
    Path file = dir.resolve("sub/out.txt");
    assertTrue(AtomicFiles.writeIfChanged(file, bytes("one\n")), "missing: written");
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(file, old);
    Object inode = Files.getAttribute(file, "unix:ino");

    assertFalse(AtomicFiles.writeIfChanged(file, bytes("one\n")));
    assertEquals(old, Files.getLastModifiedTime(file));
    assertEquals(inode, Files.getAttribute(file, "unix:ino"));

    assertTrue(AtomicFiles.writeIfChanged(file, bytes("two\n")), "same size, other bytes");
    assertArrayEquals(bytes("two\n"), Files.readAllBytes(file));
    assertTrue(AtomicFiles.writeIfChanged(file, bytes("three\n")), "other size");
    assertArrayEquals(bytes("three\n"), Files.readAllBytes(file));
    try (var left = Files.list(file.getParent())) {
      assertEquals(1, left.count(), "no temporary left beside it");
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
