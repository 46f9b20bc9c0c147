package io.github.kernelarchive.cache;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The local tier: a directory of entries keyed by their inputs, one folder per {@link EntryKind}.
 * An entry is a directory holding the payload and {@code manifest.txt}; it is assembled under
 * {@code tmp/}, flushed, and renamed into place in one step, so concurrent builds sharing the
 * cache, or a build killed half-way, never expose half an entry. Entries are dropped the same way
 * (renamed out, then deleted). The manifest's modification time is the entry's last use, for LRU
 * eviction across all kinds.
 */
public final class LocalCache implements Storage {
  // v3: object and batch entries beside archives, one folder per kind.
  private static final String LAYOUT = "v3";
  private static final long STALE_TEMP_MILLIS = 60 * 60 * 1000L;

  private final Path root;
  private final long maxBytes;

  public LocalCache(Path directory, long maxBytes) {
    this.root = directory.resolve(LAYOUT);
    this.maxBytes = maxBytes;
  }

  /** Where the cache lives, for messages. */
  public Path root() {
    return root;
  }

  /** The local directory hands over its own folder; nothing is staged. */
  @Override
  public Optional<CacheEntry> fetch(EntryKind kind, String key, Path staging) {
    return find(kind, key);
  }

  /** Copies the entry in (as a shared folder tier: a local cache on a file system several machines mount). */
  @Override
  public void store(CacheEntry entry) throws StorageException {
    try {
      publish(entry.kind(), entry.key(), entry.payload(), Files.readAllBytes(entry.manifest()));
    } catch (IOException e) {
      throw new StorageException("cannot store " + entry.kind().folder() + "/" + entry.key() + " in " + root + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public String describe() {
    return root.toString();
  }

  public Optional<CacheEntry> find(EntryKind kind, String key) {
    CacheEntry entry = new CacheEntry(kind, key, entryDirectory(kind, key));
    return Files.isRegularFile(entry.payload()) && Files.isRegularFile(entry.manifest())
        ? Optional.of(entry) : Optional.empty();
  }

  /** Marks an entry as just used, so eviction takes older ones first. */
  public void touch(CacheEntry entry) {
    try {
      Files.setLastModifiedTime(entry.manifest(), FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // Another build may have dropped the entry meanwhile; its use time does not matter then.
    }
  }

  /**
   * Copies a payload and its manifest into the cache; returns false when another build published
   * the key first.
   */
  public boolean publish(EntryKind kind, String key, Path payload, byte[] manifest) throws IOException {
    Path staging = staging(kind, key);
    try {
      Files.copy(payload, staging.resolve(kind.payloadName()), StandardCopyOption.REPLACE_EXISTING);
      Files.write(staging.resolve("manifest.txt"), manifest);
      return adopt(staging, kind, key);
    } finally {
      deleteTree(staging);
    }
  }

  /**
   * A fresh folder under {@code tmp/} to assemble an entry in (e.g. one received from the remote,
   * to verify it before anyone can see it). Hand it to {@link #adopt} or delete it.
   */
  public Path staging(EntryKind kind, String key) throws IOException {
    Path temp = root.resolve("tmp").resolve(kind.folder() + "." + key + "." + UUID.randomUUID());
    Files.createDirectories(temp);
    return temp;
  }

  /** The entry as it will look once {@code staging} is adopted: for verifying it first. */
  public CacheEntry staged(Path staging, EntryKind kind, String key) {
    return new CacheEntry(kind, key, staging);
  }

  /**
   * Flushes a staged entry and renames it into place; false when an entry of that key exists
   * already (a concurrent build won the race, or the caller did not discard an outdated one).
   */
  public boolean adopt(Path staging, EntryKind kind, String key) throws IOException {
    CacheEntry staged = staged(staging, kind, key);
    AtomicFiles.flush(staged.payload());
    AtomicFiles.flush(staged.manifest());
    Path target = entryDirectory(kind, key);
    Files.createDirectories(target.getParent());
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the cache directory " + root + " does not support atomic renames", e);
    } catch (FileSystemException e) {
      // rename(2) onto a non-empty directory fails with ENOTEMPTY: an equal entry won the race.
      if (Files.isDirectory(target)) {
        return false;
      }
      throw e;
    } finally {
      removeStaleTemporaries();
    }
  }

  /**
   * Puts an entry under another key by renaming its folder (no copy: archive entries can be
   * hundreds of MB); false, and the entry gone, when that key is taken already.
   */
  public boolean move(CacheEntry entry, String key) throws IOException {
    Path staging = root.resolve("tmp").resolve(entry.kind().folder() + "." + key + "." + UUID.randomUUID());
    Files.createDirectories(staging.getParent());
    try {
      Files.move(entry.directory(), staging, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return false; // gone meanwhile (evicted by a concurrent build)
    }
    try {
      return adopt(staging, entry.kind(), key);
    } finally {
      deleteTree(staging);
    }
  }

  /** Removes an entry (e.g. one that failed validation) without readers ever seeing part of it. */
  public void discard(CacheEntry entry) throws IOException {
    Path trash = root.resolve("tmp").resolve("discarded." + UUID.randomUUID());
    Files.createDirectories(trash.getParent());
    try {
      Files.move(entry.directory(), trash, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return; // already gone
    }
    deleteTree(trash);
  }

  /**
   * Drops least recently used entries, of every kind, until the cache fits {@code maxBytes};
   * never one of {@code keep} (the entries this build uses). Returns how many entries were evicted.
   */
  public int evict(Collection<CacheEntry> keep) throws IOException {
    record Sized(CacheEntry entry, long bytes, long lastUse) {}
    List<Sized> entries = new ArrayList<>();
    long total = 0;
    for (CacheEntry entry : entries()) {
      Sized sized = new Sized(entry, entry.bytes(), lastUse(entry));
      entries.add(sized);
      total += sized.bytes();
    }
    if (total <= maxBytes) {
      return 0;
    }
    entries.sort(Comparator.comparingLong(Sized::lastUse));
    int evicted = 0;
    for (Sized sized : entries) {
      if (total <= maxBytes) {
        break;
      }
      if (!keep.contains(sized.entry())) {
        discard(sized.entry());
        total -= sized.bytes();
        evicted++;
      }
    }
    return evicted;
  }

  /** Every complete entry of every kind. */
  public List<CacheEntry> entries() throws IOException {
    List<CacheEntry> entries = new ArrayList<>();
    for (EntryKind kind : EntryKind.values()) {
      entries.addAll(entries(kind));
    }
    return entries;
  }

  public List<CacheEntry> entries(EntryKind kind) throws IOException {
    List<CacheEntry> entries = new ArrayList<>();
    Path folder = root.resolve(kind.folder());
    if (!Files.isDirectory(folder)) {
      return entries;
    }
    try (Stream<Path> shards = Files.list(folder)) {
      for (Path shard : (Iterable<Path>) shards.filter(p -> p.getFileName().toString().length() == 2)::iterator) {
        try (Stream<Path> dirs = Files.list(shard)) {
          dirs.forEach(d -> entries.add(new CacheEntry(kind, d.getFileName().toString(), d)));
        }
      }
    }
    return entries;
  }

  private Path entryDirectory(EntryKind kind, String key) {
    return root.resolve(kind.folder()).resolve(key.substring(0, 2)).resolve(key);
  }

  private static long lastUse(CacheEntry entry) {
    try {
      return Files.getLastModifiedTime(entry.manifest()).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  /** Leftovers of builds that were killed while publishing. */
  private void removeStaleTemporaries() throws IOException {
    Path tmp = root.resolve("tmp");
    if (!Files.isDirectory(tmp)) {
      return;
    }
    long cutoff = System.currentTimeMillis() - STALE_TEMP_MILLIS;
    try (Stream<Path> leftovers = Files.list(tmp)) {
      for (Path leftover : (Iterable<Path>) leftovers::iterator) {
        if (Files.getLastModifiedTime(leftover).toMillis() < cutoff) {
          deleteTree(leftover);
        }
      }
    } catch (NoSuchFileException e) {
      // removed by a concurrent build
    }
  }

  static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (NoSuchFileException e) {
      // removed by a concurrent build
    }
  }
}
