package io.github.kernelarchive.jarfile;

import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ZipTime;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;

/**
 * Writes a jar whose bytes depend only on its entries and one time: the manifest first (as
 * {@code java.util.jar} expects), then the entries sorted by name, each with that time (the same
 * bytes in any time zone, {@link ZipTime}) and mode 0644 (0755 for shared libraries). Through
 * Commons Compress, as the plugin's other archives; written under a temporary name and renamed, so
 * a failed write leaves no jar a consumer picks up.
 */
public final class JarWriter {
  /** Where an entry's bytes come from, opened when it is written (a file, another jar's entry). */
  @FunctionalInterface
  public interface Source {
    InputStream open() throws IOException;
  }

  /** One entry: its path in the jar and what it holds. */
  public record Entry(String name, Source source, boolean executable) {
    public static Entry of(String name, Path file, boolean executable) {
      return new Entry(name, () -> Files.newInputStream(file), executable);
    }

    public static Entry text(String name, String text) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      return new Entry(name, () -> new ByteArrayInputStream(bytes), false);
    }
  }

  private JarWriter() {}

  /** @param createdBy the manifest's {@code Created-By} */
  public static void write(Path target, List<Entry> entries, FileTime time, String createdBy) throws IOException {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing(Entry::name));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).name().equals(sorted.get(i - 1).name())) {
        throw new IllegalArgumentException("two jar entries named " + sorted.get(i).name());
      }
    }
    sorted.add(0, Entry.text("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: " + createdBy + "\r\n\r\n"));
    Files.createDirectories(target.getParent());
    Path temporary = AtomicFiles.temporarySibling(target);
    try {
      try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(temporary)) {
        zip.setLevel(Deflater.BEST_COMPRESSION);
        for (Entry entry : sorted) {
          ZipArchiveEntry zipEntry = new ZipArchiveEntry(entry.name());
          zipEntry.setTime(ZipTime.dosTime(time));
          zipEntry.setUnixMode((entry.executable() ? 0755 : 0644) | 0100000);
          zip.putArchiveEntry(zipEntry);
          try (InputStream in = entry.source().open()) {
            in.transferTo(zip);
          }
          zip.closeArchiveEntry();
        }
      }
      AtomicFiles.publish(temporary, target);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
