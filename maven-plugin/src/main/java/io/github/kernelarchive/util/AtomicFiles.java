package io.github.kernelarchive.util;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Publishing files so that readers see either the old content or the new one, never a half-written
 * file: write a temporary sibling, flush it to disk, then rename it over the target.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /** A temporary name in the target's own directory (rename is only atomic within a file system). */
  public static Path temporarySibling(Path target) throws IOException {
    Files.createDirectories(target.toAbsolutePath().getParent());
    return Files.createTempFile(target.toAbsolutePath().getParent(), "." + target.getFileName() + ".", ".tmp");
  }

  public static void write(Path target, byte[] content) throws IOException {
    Path temp = temporarySibling(target);
    try {
      Files.write(temp, content);
      publish(temp, target);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Forces a file's content to disk, so a rename that publishes it never exposes unwritten blocks. */
  public static void flush(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  /** Flushes {@code temp} and renames it to {@code target}. */
  public static void publish(Path temp, Path target) throws IOException {
    flush(temp);
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot rename " + temp + " atomically onto " + target, e);
    }
  }
}
