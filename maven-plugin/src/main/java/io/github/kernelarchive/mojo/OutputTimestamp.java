package io.github.kernelarchive.mojo;

import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.apache.maven.plugin.MojoFailureException;

/**
 * The one modification time every entry of a packaged file gets (bundle, wheel), as Maven's own
 * archivers take it: {@code project.build.outputTimestamp} (ISO-8601 or seconds since the epoch),
 * else {@code SOURCE_DATE_EPOCH}, else a fixed time. Never the clock: the same inputs give the same bytes.
 */
final class OutputTimestamp {
  /** When neither is set. */
  static final Instant FIXED_TIME = Instant.parse("2000-01-01T00:00:00Z");

  private OutputTimestamp() {}

  static FileTime of(String outputTimestamp, String sourceDateEpoch) throws MojoFailureException {
    // Maven's own default of the property is a single character ("a value that means none").
    if (outputTimestamp != null && outputTimestamp.strip().length() >= 2) {
      return parse(outputTimestamp.strip(), "project.build.outputTimestamp", "an ISO-8601 time such as 2026-11-24T00:00:00Z,"
          + " or seconds since the epoch");
    }
    if (sourceDateEpoch != null && !sourceDateEpoch.isBlank()) {
      return parse(sourceDateEpoch.strip(), "SOURCE_DATE_EPOCH", "seconds since the epoch");
    }
    return FileTime.from(FIXED_TIME);
  }

  private static FileTime parse(String value, String name, String expected) throws MojoFailureException {
    try {
      if (value.chars().allMatch(Character::isDigit)) {
        return FileTime.from(Instant.ofEpochSecond(Long.parseLong(value)));
      }
      return FileTime.from(OffsetDateTime.parse(value).toInstant());
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new MojoFailureException(name + " is '" + value + "': use " + expected + ".");
    }
  }
}
