package io.github.kernelarchive.cache;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where cache entries are kept, by kind and key, as ccache keeps its storage backends apart: the
 * local directory ({@link LocalCache}) and an HTTP server ({@link RemoteCache}) are two; a third
 * (an object store, a shared folder) is one more class. {@link BuildCache} puts the local one
 * first and a shared one behind it, and verifies everything a store hands over before a stage
 * sees it.
 */
public interface Storage {
  /**
   * The complete entry of that kind and key, or empty on a miss. A store that holds entries
   * elsewhere assembles it in {@code staging} (an empty folder of the local cache); the local
   * directory hands over its own folder.
   *
   * @throws StorageException when the store failed (already reported: the build goes on without it)
   */
  Optional<CacheEntry> fetch(EntryKind kind, String key, Path staging) throws StorageException, InterruptedException;

  /** Keeps a copy of {@code entry} under its kind and key. */
  void store(CacheEntry entry) throws StorageException, InterruptedException;

  /** Where it is, for messages: a folder, or a URL without credentials. */
  String describe();

  /** Whether this build may store entries in it ({@code kernel.cache.remote.push}). */
  default boolean accepts() {
    return true;
  }

  /** Whether it is still in use in this build (a failing remote switches itself off). */
  default boolean available() {
    return true;
  }

  /** An entry it handed over verified and was used. */
  default void confirmed() {}

  /** An entry it handed over did not verify for its key; reported by the store. */
  default void rejected(EntryKind kind, String key, String problem) {}

  /** Faults this build, for the summary. */
  default int failures() {
    return 0;
  }
}
