package io.github.kernelarchive.jarfile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.kernelarchive.bundle.BundleWriter;
import io.github.kernelarchive.wheelfile.WheelEntry;
import io.github.kernelarchive.wheelfile.WheelWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.TimeZone;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel jar, the wheel and the bundle written with one time under three time zones (the JVM's
 * default zone, which {@code TZ} sets): the same bytes, and the zip's fields read as UTC.
 */
class TimeZoneTest {
  static final FileTime TIME = FileTime.from(Instant.parse("2024-01-01T00:00:00Z"));

  @Test
  void theSameBytesInEveryTimeZone(@TempDir Path dir) throws Exception {
    Path header = Files.writeString(dir.resolve("k.h"), "int k(void);\n");
    TimeZone before = TimeZone.getDefault();
    try {
      for (String zone : List.of("UTC", "America/Los_Angeles", "Asia/Kolkata")) {
        TimeZone.setDefault(TimeZone.getTimeZone(zone));
        Path out = Files.createDirectories(dir.resolve(zone.replace('/', '-')));
        JarWriter.write(out.resolve("k.jar"), List.of(JarWriter.Entry.of("META-INF/native/include/k.h", header, false)),
            TIME, "test");
        WheelWriter.write(out.resolve("k.whl"), "k-1.0.dist-info", List.of(WheelEntry.file("k/include/k.h", header,
            false)), TIME);
        BundleWriter.write(out.resolve("k.kernel"), List.of(BundleWriter.Entry.file("include/k.h", header)), TIME);
      }
      for (String file : List.of("k.jar", "k.whl", "k.kernel")) {
        byte[] utc = Files.readAllBytes(dir.resolve("UTC").resolve(file));
        assertArrayEquals(utc, Files.readAllBytes(dir.resolve("America-Los_Angeles").resolve(file)), file);
        assertArrayEquals(utc, Files.readAllBytes(dir.resolve("Asia-Kolkata").resolve(file)), file);
      }
      // The DOS fields say 2024-01-01 00:00:00: read in UTC, the time given.
      TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
      try (ZipFile zip = ZipFile.builder().setPath(dir.resolve("America-Los_Angeles/k.jar")).get()) {
        assertEquals(TIME.toMillis(), zip.getEntry("META-INF/native/include/k.h").getTime());
      }
    } finally {
      TimeZone.setDefault(before);
    }
  }
}
