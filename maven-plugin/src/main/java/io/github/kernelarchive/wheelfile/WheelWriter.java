package io.github.kernelarchive.wheelfile;

import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.ZipTime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;

/**
 * Writes a wheel (PEP 427): a zip whose bytes depend only on its entries and one time. Entries
 * sorted by path with the {@code .dist-info} folder last and its {@code RECORD} last of all; each
 * entry hashed while it is written (one pass), and {@code RECORD} made from those hashes; mode
 * 0644 or 0755; one time for all, never before 1980 (zip cannot say earlier). The wheel is written
 * under a temporary name, read back with {@link WheelVerifier}, and only then renamed onto the
 * target; a target whose bytes are already the same is left untouched.
 */
public final class WheelWriter {
  private WheelWriter() {}

  /** What {@link #write} did. */
  public enum Outcome { WRITTEN, UNCHANGED }

  /**
   * @param distInfo the {@code .dist-info} folder's name ({@code mha-1.0.dist-info}); its RECORD is made here
   * @param time every entry's modification time
   */
  public static Outcome write(Path target, String distInfo, List<WheelEntry> entries, FileTime time) throws IOException {
    String record = distInfo + "/RECORD";
    List<WheelEntry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing((WheelEntry e) -> e.name().startsWith(distInfo + "/"))
        .thenComparing(WheelEntry::name));
    for (int i = 0; i < sorted.size(); i++) {
      if (sorted.get(i).name().equals(record) || (i > 0 && sorted.get(i).name().equals(sorted.get(i - 1).name()))) {
        throw new IllegalArgumentException("two wheel entries named " + sorted.get(i).name());
      }
    }
    long dosTime = ZipTime.dosTime(time);
    Path temporary = AtomicFiles.temporarySibling(target);
    try {
      StringBuilder lines = new StringBuilder();
      try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(temporary)) {
        zip.setLevel(Deflater.BEST_COMPRESSION);
        for (WheelEntry entry : sorted) {
          lines.append(recordLine(entry.name(), writeEntry(zip, entry, dosTime)));
        }
        lines.append(recordField(record)).append(",,\n");
        writeEntry(zip, WheelEntry.text(record, lines.toString()), dosTime);
      }
      WheelVerifier.verify(temporary, distInfo);
      if (Files.isRegularFile(target) && Files.mismatch(target, temporary) == -1) {
        return Outcome.UNCHANGED;
      }
      AtomicFiles.publish(temporary, target);
      return Outcome.WRITTEN;
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /** One RECORD line: {@code path,sha256=<urlsafe base64, no padding>,size}. */
  static String recordLine(String name, Hashed hashed) {
    return recordField(name) + ",sha256=" + Base64.getUrlEncoder().withoutPadding().encodeToString(hashed.sha256())
        + "," + hashed.size() + "\n";
  }

  /** RECORD is CSV: a path with a comma, a quote or a line break is quoted, quotes doubled. */
  static String recordField(String value) {
    return value.matches("[^,\"\r\n]*") ? value : "\"" + value.replace("\"", "\"\"") + "\"";
  }

  record Hashed(byte[] sha256, long size) {}

  private static Hashed writeEntry(ZipArchiveOutputStream zip, WheelEntry entry, long dosTime) throws IOException {
    ZipArchiveEntry header = new ZipArchiveEntry(entry.name());
    header.setTime(dosTime);
    header.setUnixMode(entry.executable() ? 0100755 : 0100644);
    header.setMethod(ZipArchiveEntry.DEFLATED);
    zip.putArchiveEntry(header);
    MessageDigest sha256 = Hashing.sha256();
    long size = 0;
    if (entry.bytes() != null) {
      sha256.update(entry.bytes());
      zip.write(entry.bytes());
      size = entry.bytes().length;
    } else {
      byte[] buffer = new byte[1 << 16];
      try (InputStream in = Files.newInputStream(entry.source())) {
        for (int n; (n = in.read(buffer)) > 0; ) {
          sha256.update(buffer, 0, n);
          zip.write(buffer, 0, n);
          size += n;
        }
      }
    }
    zip.closeArchiveEntry();
    return new Hashed(sha256.digest(), size);
  }
}
