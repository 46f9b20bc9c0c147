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
 * file: write a temporary sibling, then rename it over the target. Outputs under {@code target/}
 * are not forced to disk (like every native build tool, and several times cheaper for archives of
 * hundreds of megabytes): after a crash they are stale or missing, never partial, and each reuse is
 * checked by key or validated. Cache entries, shared between builds, are flushed with
 * {@link #flush} before their rename.
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

  /** Renames {@code temp} over {@code target} in one step. */
  public static void publish(Path temp, Path target) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot rename " + temp + " atomically onto " + target, e);
    }
  }
}
