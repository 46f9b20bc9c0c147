package io.github.kernelarchive.util;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

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

  /**
   * A fresh temporary name in the target's own directory (rename is only atomic within a file
   * system). The file is not created: whoever writes it (Java, the linker, ar) creates it, so it
   * gets the process's umask like any other output. {@code Files.createTempFile} would make it
   * 0600, the rename would keep that, and a library installed by one user could not be read by
   * another (linkers even keep the old mode and add execute bits: 0711).
   */
  public static Path temporarySibling(Path target) throws IOException {
    Path directory = target.toAbsolutePath().getParent();
    Files.createDirectories(directory);
    return directory.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
  }

  /** The names {@link #temporarySibling} gives: {@code .<target>.<uuid>.tmp}. */
  private static final Pattern TEMPORARY = Pattern.compile(
      "\\..+\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp");

  /**
   * Deletes what a killed build left under temporary names in {@code directory} and its folders,
   * except the folders named in {@code skip} (where nothing is written that way, and which may
   * hold many files): a temporary is never published, and a build that was SIGKILLed never got
   * to delete its own. Only for a folder one build owns at a time.
   *
   * @return the bytes removed
   */
  public static long sweepTemporaries(Path directory, Set<String> skip) throws IOException {
    if (!Files.isDirectory(directory)) {
      return 0;
    }
    long[] removed = {0};
    Files.walkFileTree(directory, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) {
        return !dir.equals(directory) && skip.contains(dir.getFileName().toString())
            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a)
          throws IOException {
        if (TEMPORARY.matcher(file.getFileName().toString()).matches()) {
          long size = a.size();
          if (Files.deleteIfExists(file)) {
            removed[0] += size;
          }
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return removed[0];
  }

  /**
   * Writes {@code content} unless {@code target} already holds exactly it, and says whether it
   * wrote: a build that changed nothing leaves its outputs' times alone, as make and Ninja do, and
   * skips a temporary, a write and a rename per file.
   */
  public static boolean writeIfChanged(Path target, byte[] content) throws IOException {
    if (Files.isRegularFile(target) && Files.size(target) == content.length
        && Arrays.equals(Files.readAllBytes(target), content)) {
      return false;
    }
    write(target, content);
    return true;
  }

  public static void write(Path target, byte[] content) throws IOException {
    Path temp = temporarySibling(target);
    try {
      Files.write(temp, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
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
