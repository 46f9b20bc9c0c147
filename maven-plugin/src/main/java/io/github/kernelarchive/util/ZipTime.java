package io.github.kernelarchive.util;

import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.TimeZone;

/**
 * A zip entry's time that reads the same in every time zone. Zip stores DOS date and time fields
 * with no zone, and Commons Compress (like java.util.zip) fills them from a Java time in the JVM's
 * default zone: the same build under {@code TZ=UTC} and {@code TZ=America/Los_Angeles} would give
 * different bytes. Shifted by the zone's offset, the fields read as the UTC time, as Python's
 * zipfile writes them.
 */
public final class ZipTime {
  /** The earliest time a zip entry can carry: 1980-01-01T00:00:00Z. */
  public static final Instant ZIP_EPOCH = Instant.parse("1980-01-01T00:00:00Z");

  private ZipTime() {}

  /** The value to give {@code ZipArchiveEntry.setTime(long)} for {@code time}; never before 1980. */
  public static long dosTime(FileTime time) {
    long millis = Math.max(time.toMillis(), ZIP_EPOCH.toEpochMilli());
    millis -= millis % 2000; // DOS times count in two-second steps
    return millis - TimeZone.getDefault().getOffset(millis);
  }
}
