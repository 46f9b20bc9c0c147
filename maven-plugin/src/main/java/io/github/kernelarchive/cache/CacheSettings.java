package io.github.kernelarchive.cache;

import java.nio.file.Path;

/**
 * Where built objects, batches and archives are kept for other builds.
 *
 * @param directory the local cache; {@code null}: no cache at all (nor the remote tier)
 * @param maxBytes size cap of the local cache (least recently used entries go first)
 * @param remote the shared HTTP tier behind the local cache; {@code null}: none
 */
public record CacheSettings(Path directory, long maxBytes, RemoteCache.Settings remote) {
  public static final CacheSettings OFF = new CacheSettings(null, 0, null);

  public boolean enabled() {
    return directory != null;
  }
}
