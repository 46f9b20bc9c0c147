package io.github.kernelarchive.bundle;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;

/**
 * Writes a kernel bundle: a gzip-compressed tar whose bytes depend only on its entries' names and
 * contents and on the given time: entries sorted by name, owner 0 with no user or group name,
 * mode 0644 (0755 for shared libraries), one modification time for all, and a gzip header
 * without a time or a file name. So the same inputs give the same bundle in any checkout, on any
 * machine. Written under a temporary name and renamed: nothing half-written is ever published.
 */
public final class BundleWriter {
  /** One file of the bundle: {@code name} inside it ({@code lib/libte.so}), from {@code source} or {@code bytes}. */
  public record Entry(String name, Path source, byte[] bytes, boolean executable) {
    public static Entry file(String name, Path source) {
      return new Entry(name, source, null, name.endsWith(".so"));
    }

    public static Entry bytes(String name, byte[] content) {
      return new Entry(name, null, content, false);
    }
  }

  private BundleWriter() {}

  /** @param time every entry's modification time ({@code project.build.outputTimestamp}, else a fixed one) */
  public static void write(Path target, List<Entry> entries, FileTime time) throws IOException {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing(Entry::name));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).name().equals(sorted.get(i - 1).name())) {
        throw new IllegalArgumentException("two bundle entries named " + sorted.get(i).name());
      }
    }
    Files.createDirectories(target.toAbsolutePath().getParent());
    Path temporary = AtomicFiles.temporarySibling(target);
    try {
      GzipParameters gzip = new GzipParameters();
      gzip.setCompressionLevel(Deflater.BEST_COMPRESSION);
      gzip.setModificationTime(0);
      try (OutputStream file = Files.newOutputStream(temporary);
          TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(file, gzip))) {
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        tar.setAddPaxHeadersForNonAsciiNames(true);
        for (Entry entry : sorted) {
          TarArchiveEntry header = new TarArchiveEntry(entry.name(), true);
          header.setSize(entry.bytes() != null ? entry.bytes().length : Files.size(entry.source()));
          header.setMode(entry.executable() ? 0100755 : 0100644);
          header.setLastModifiedTime(time);
          header.setIds(0, 0);
          header.setNames("", "");
          tar.putArchiveEntry(header);
          if (entry.bytes() != null) {
            tar.write(entry.bytes());
          } else {
            Files.copy(entry.source(), tar);
          }
          tar.closeArchiveEntry();
        }
        tar.finish();
      }
      AtomicFiles.publish(temporary, target);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
