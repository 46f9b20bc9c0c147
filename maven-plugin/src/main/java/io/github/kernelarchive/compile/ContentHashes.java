package io.github.kernelarchive.compile;

import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Content hashes of sources and headers, each file read at most once per build: hundreds of
 * sources share the same system headers.
 */
public final class ContentHashes {
  private final ConcurrentHashMap<Path, Optional<String>> hashes = new ConcurrentHashMap<>();

  /** The file's SHA-256, or empty when it no longer exists or cannot be read. */
  public Optional<String> of(Path file) {
    return hashes.computeIfAbsent(file.toAbsolutePath().normalize(), ContentHashes::read);
  }

  private static Optional<String> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Hashing.ofFile(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
