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
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A local store of validated archives keyed by their inputs. An entry is a directory holding
 * {@code archive.a} and {@code manifest.txt}; it is assembled under {@code tmp/}, flushed, and
 * renamed into place in one step, so concurrent builds sharing the cache, or a build killed
 * half-way, never expose half an entry. Entries are dropped the same way (renamed out, then
 * deleted). The manifest's modification time is the entry's last use, for LRU eviction.
 */
public final class ArchiveCache {
  private static final String LAYOUT = "v2"; // v2: manifests carry an ArchiveDigest instead of the file SHA-256
  private static final long STALE_TEMP_MILLIS = 60 * 60 * 1000L;

  /** A complete entry. */
  public record Entry(String key, Path directory) {
    public Path archive() {
      return directory.resolve("archive.a");
    }

    public Path manifest() {
      return directory.resolve("manifest.txt");
    }
  }

  private final Path root;
  private final long maxBytes;

  public ArchiveCache(Path directory, long maxBytes) {
    this.root = directory.resolve(LAYOUT);
    this.maxBytes = maxBytes;
  }

  public Optional<Entry> find(String key) {
    Entry entry = new Entry(key, entryDirectory(key));
    return Files.isRegularFile(entry.archive()) && Files.isRegularFile(entry.manifest())
        ? Optional.of(entry) : Optional.empty();
  }

  /** Marks an entry as just used, so eviction takes older ones first. */
  public void touch(Entry entry) {
    try {
      Files.setLastModifiedTime(entry.manifest(), FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // Another build may have dropped the entry meanwhile; its use time does not matter then.
    }
  }

  /** Copies the archive and manifest into the cache; returns false when another build published the key first. */
  public boolean publish(String key, Path archive, Manifest manifest) throws IOException {
    Path temp = root.resolve("tmp").resolve(key + "." + UUID.randomUUID());
    Files.createDirectories(temp);
    try {
      Path archiveCopy = temp.resolve("archive.a");
      Files.copy(archive, archiveCopy, StandardCopyOption.REPLACE_EXISTING);
      AtomicFiles.flush(archiveCopy);
      manifest.write(temp.resolve("manifest.txt"));
      AtomicFiles.flush(temp.resolve("manifest.txt"));
      Path target = entryDirectory(key);
      Files.createDirectories(target.getParent());
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        return true;
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the cache directory " + root + " does not support atomic renames", e);
      } catch (FileSystemException e) {
        // rename(2) onto a non-empty directory fails with ENOTEMPTY: an equal entry from a
        // concurrent build won the race, and ours is dropped.
        if (Files.isDirectory(target)) {
          return false;
        }
        throw e;
      }
    } finally {
      deleteTree(temp);
      removeStaleTemporaries();
    }
  }

  /** Removes an entry (e.g. one that failed validation) without readers ever seeing part of it. */
  public void discard(Entry entry) throws IOException {
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
   * Drops least recently used entries until the cache fits {@code maxBytes}; never the entry
   * {@code keep} (the one this build uses). Returns how many entries were evicted.
   */
  public int evict(String keep) throws IOException {
    record Sized(Entry entry, long bytes, long lastUse) {}
    List<Sized> entries = new ArrayList<>();
    long total = 0;
    for (Entry entry : entries()) {
      Sized sized = new Sized(entry, sizeOf(entry.archive()) + sizeOf(entry.manifest()), lastUse(entry));
      entries.add(sized);
      total += sized.bytes();
    }
    entries.sort(Comparator.comparingLong(Sized::lastUse));
    int evicted = 0;
    for (Sized sized : entries) {
      if (total <= maxBytes) {
        break;
      }
      if (!sized.entry().key().equals(keep)) {
        discard(sized.entry());
        total -= sized.bytes();
        evicted++;
      }
    }
    return evicted;
  }

  public List<Entry> entries() throws IOException {
    List<Entry> entries = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return entries;
    }
    try (Stream<Path> shards = Files.list(root)) {
      for (Path shard : (Iterable<Path>) shards.filter(p -> p.getFileName().toString().length() == 2)::iterator) {
        try (Stream<Path> dirs = Files.list(shard)) {
          dirs.forEach(d -> entries.add(new Entry(d.getFileName().toString(), d)));
        }
      }
    }
    return entries;
  }

  private Path entryDirectory(String key) {
    return root.resolve(key.substring(0, 2)).resolve(key);
  }

  private static long lastUse(Entry entry) {
    try {
      return Files.getLastModifiedTime(entry.manifest()).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
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
