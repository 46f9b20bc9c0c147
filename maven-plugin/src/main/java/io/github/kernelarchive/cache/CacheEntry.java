package io.github.kernelarchive.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A complete cache entry as the stages see it, wherever it was kept: a folder holding the payload
 * ({@link EntryKind#payloadName}) and {@code manifest.txt}.
 */
public record CacheEntry(EntryKind kind, String key, Path directory) {
  public Path payload() {
    return directory.resolve(kind.payloadName());
  }

  public Path manifest() {
    return directory.resolve("manifest.txt");
  }

  /** Payload and manifest together; 0 for a file that vanished meanwhile. */
  public long bytes() {
    return sizeOf(payload()) + sizeOf(manifest());
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0;
    }
  }
}
