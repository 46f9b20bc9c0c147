package io.github.kernelarchive.cache;

import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.BoundedPool;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cache as the stages see it: the local tier first, then a shared one behind it (any
 * {@link Storage}: the HTTP remote, or another directory). An entry from the shared tier is
 * assembled in a staging folder of the local cache, verified there exactly as a local
 * entry would be, and only then renamed into place; one that does not verify is reported and
 * deleted, so nothing from a bad response is ever used or kept. Entries stored during the build
 * are uploaded at its end ({@link #finish}), after the library has linked.
 *
 * <p>One key keeps up to {@link #VARIANTS} entries, built against different header contents, as
 * ccache's manifests do: the newest under the key itself, older ones under keys derived from it
 * ({@link #variant}). A new entry moves those this build found outdated one place down and drops
 * the oldest, so switching a branch back, or reverting a header, finds its objects again.
 */
public final class BuildCache {
  /** Entries kept per key, each built against other headers. */
  public static final int VARIANTS = 3;

  /** What a verifier says of an entry. */
  public enum Status {
    /** Valid, and built from this build's inputs. */
    USABLE,
    /** Valid, but built against other headers: a miss, not damage. */
    STALE,
    /** Damaged or forged: never used; a local one is dropped, a remote one reported. */
    CORRUPT
  }

  public record Verdict(Status status, String problem) {
    public static final Verdict USABLE = new Verdict(Status.USABLE, null);
    public static final Verdict STALE = new Verdict(Status.STALE, null);

    public static Verdict corrupt(String problem) {
      return new Verdict(Status.CORRUPT, problem);
    }
  }

  /** Checks an entry (local, or staged from the remote) against what the build needs. */
  public interface Verifier {
    Verdict verify(CacheEntry entry) throws IOException;
  }

  /** What the cache did in one build, for the summary. */
  public record Stats(int localHits, long localBytes, int remoteHits, long remoteBytes, long remoteMillis,
      int uploaded, long uploadedBytes, int remoteFailures, boolean remote) {}

  /** Parallel uploads at the end of the build. */
  private static final int UPLOADS_AT_ONCE = 4;

  private final LocalCache local;
  private final Storage remote;
  private final BuildLog log;
  private final Set<CacheEntry> used = ConcurrentHashMap.newKeySet();
  private final Set<CacheEntry> stored = ConcurrentHashMap.newKeySet();
  /** Entries found built against other headers: a new entry of the same key replaces them. */
  private final Set<CacheEntry> outdated = ConcurrentHashMap.newKeySet();
  private final AtomicLong localHits = new AtomicLong();
  private final AtomicLong localBytes = new AtomicLong();
  private final AtomicLong remoteHits = new AtomicLong();
  private final AtomicLong remoteBytes = new AtomicLong();
  private final AtomicLong remoteNanos = new AtomicLong();
  private int uploaded;
  private long uploadedBytes;
  /** Set once the local cache could not be written: nothing more is stored (one warning). */
  private volatile boolean readOnly;

  /** @param remote the shared tier; {@code null}: local tier only */
  /**
   * The cache {@code settings} describe: the local directory, with the remote tier behind it when
   * one is configured; empty when the cache is off.
   *
   * @throws IllegalArgumentException for a remote URL that cannot be used (the message says why)
   */
  public static Optional<BuildCache> open(CacheSettings settings, BuildLog log) {
    if (!settings.enabled()) {
      return Optional.empty();
    }
    RemoteCache remote = settings.remote() == null ? null : new RemoteCache(settings.remote(), log);
    if (remote != null) {
      log.info("Cache: " + settings.directory() + ", remote " + remote.displayUrl()
          + (remote.push() ? "" : " (read-only: kernel.cache.remote.push=false)"));
    }
    return Optional.of(new BuildCache(new LocalCache(settings.directory(), settings.maxBytes()), remote, log));
  }

  public BuildCache(LocalCache local, Storage remote, BuildLog log) {
    this.local = local;
    this.remote = remote;
    this.log = log;
  }

  /** Where the {@code n}th entry of a key is kept: the key itself for the newest (0), a key derived from it after. */
  static String variant(String key, int n) {
    return n == 0 ? key : Hashing.ofStrings(List.of(key, "header set " + n));
  }

  /**
   * The usable entry of that key (any of its variants), from the local tier or else the remote
   * one (then kept locally); empty on a miss. Variants are looked at in order until one is
   * missing: they fill from the newest down.
   *
   * @param what how warnings name the entry, e.g. "archive 'k'"
   */
  public Optional<CacheEntry> find(EntryKind kind, String key, String what, Verifier verifier)
      throws IOException, InterruptedException {
    List<Optional<CacheEntry>> staleLocal = new ArrayList<>();
    for (int n = 0; n < VARIANTS; n++) {
      Optional<CacheEntry> found = local.find(kind, variant(key, n));
      if (found.isEmpty()) {
        break;
      }
      Verdict verdict = verifyQuietly(verifier, found.get());
      if (verdict.status() == Status.USABLE) {
        local.touch(found.get());
        used.add(found.get());
        localHits.incrementAndGet();
        localBytes.addAndGet(found.get().bytes());
        return found;
      }
      if (verdict.status() == Status.CORRUPT) {
        log.warn("Cache entry for " + what + " is corrupt (" + verdict.problem() + "): dropped and rebuilt.");
        try {
          local.discard(found.get());
        } catch (IOException e) {
          unwritable(e);
        }
        staleLocal.add(Optional.empty());
      } else {
        outdated.add(found.get());
        staleLocal.add(found);
      }
    }
    if (remote == null || !remote.available() || readOnly) {
      return Optional.empty();
    }
    try {
      // The next variant only after a sound entry built against other headers: a missing one
      // ends the search, and a bad one is the remote's fault, counted once.
      for (int n = 0; n < VARIANTS; n++) {
        boolean[] stale = {false};
        Optional<CacheEntry> fetched = fromRemote(kind, variant(key, n),
            n < staleLocal.size() ? staleLocal.get(n) : Optional.empty(), verifier, stale);
        if (fetched.isPresent() || !stale[0]) {
          return fetched;
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      unwritable(e); // the remote's entry cannot be staged locally: a miss
      return Optional.empty();
    }
  }

  /** The first write the local cache refuses turns storing off for the rest of the build, with one warning. */
  private void unwritable(IOException e) {
    if (!readOnly) {
      synchronized (this) {
        if (!readOnly) {
          readOnly = true;
          log.warn("The cache directory " + local.root() + " cannot be written (" + e.getMessage() + "): nothing"
              + " is stored in it for the rest of this build. Fix its permissions or free space, or set"
              + " kernel.cache.dir.");
        }
      }
    }
  }

  /** @param stale set when the remote holds a sound entry of that key built against other headers */
  private Optional<CacheEntry> fromRemote(EntryKind kind, String key, Optional<CacheEntry> outdated,
      Verifier verifier, boolean[] stale) throws IOException, InterruptedException {
    long start = System.nanoTime();
    Path staging = local.staging(kind, key);
    try (Trace.Span span = Trace.current().span("fetch " + kind.folder() + " " + key.substring(0, 12), "cache")) {
      Optional<CacheEntry> fetched;
      try {
        fetched = remote.fetch(kind, key, staging);
      } catch (StorageException e) {
        return Optional.empty();
      }
      if (fetched.isEmpty()) {
        return Optional.empty();
      }
      CacheEntry staged = local.staged(staging, kind, key);
      if (!fetched.get().directory().equals(staging)) {
        // A store that hands over its own folder (a shared directory): the local tier keeps a copy.
        Files.copy(fetched.get().payload(), staged.payload());
        Files.copy(fetched.get().manifest(), staged.manifest());
      }
      long received = staged.bytes();
      Verdict verdict = verifyQuietly(verifier, staged);
      if (verdict.status() == Status.CORRUPT) {
        remote.rejected(kind, key, verdict.problem());
        return Optional.empty();
      }
      if (verdict.status() == Status.STALE) {
        remote.confirmed(); // a sound entry, built against other headers
        stale[0] = true;
        return Optional.empty();
      }
      if (outdated.isPresent()) {
        local.discard(outdated.get()); // same key, built against other headers: the remote's replaces it
        this.outdated.remove(outdated.get());
      }
      local.adopt(staging, kind, key); // or an equal entry of a concurrent build won: either serves
      CacheEntry entry = local.find(kind, key).orElseThrow(() -> new IOException(
          "the cache entry " + kind.folder() + "/" + key + " vanished right after it was stored"));
      used.add(entry);
      remote.confirmed();
      remoteHits.incrementAndGet();
      remoteBytes.addAndGet(received);
      return Optional.of(entry);
    } finally {
      LocalCache.deleteTree(staging);
      remoteNanos.addAndGet(System.nanoTime() - start);
    }
  }

  /** A verifier's failure to read an entry is damage too, never a failed build. */
  private static Verdict verifyQuietly(Verifier verifier, CacheEntry entry) {
    try {
      return verifier.verify(entry);
    } catch (IOException | RuntimeException e) {
      return Verdict.corrupt(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  /**
   * Copies a found entry's payload to {@code target} (atomically); false when the entry vanished
   * meanwhile (evicted or replaced by a concurrent build): the caller then treats it as a miss.
   */
  public boolean checkOut(CacheEntry entry, Path target) throws IOException {
    Path temporary = AtomicFiles.temporarySibling(target);
    try {
      Files.copy(entry.payload(), temporary, StandardCopyOption.REPLACE_EXISTING);
      AtomicFiles.publish(temporary, target);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /**
   * Stores a new entry locally and queues it for upload. It takes the place of an entry of the same
   * key only when this build found that one outdated (which then moves down a place:
   * {@link #VARIANTS}); otherwise an entry a concurrent build published first stays (readers may be
   * using it). A cache that cannot be written costs a warning, never the build.
   */
  public void store(EntryKind kind, String key, Path payload, byte[] manifest) {
    if (readOnly) {
      return;
    }
    try {
      // The variants this build found outdated move one place down, the oldest is dropped; from
      // the last place up, so each move finds its place free.
      for (int n = VARIANTS - 1; n >= 0; n--) {
        for (CacheEntry old : outdated) {
          if (old.kind() != kind || !old.key().equals(variant(key, n))) {
            continue;
          }
          if (n + 1 < VARIANTS && local.move(old, variant(key, n + 1))) {
            local.find(kind, variant(key, n + 1)).ifPresent(stored::add);
          } else {
            local.discard(old);
          }
          outdated.remove(old);
        }
      }
      if (local.publish(kind, key, payload, manifest)) {
        local.find(kind, key).ifPresent(entry -> {
          used.add(entry);
          stored.add(entry);
        });
      }
    } catch (IOException e) {
      unwritable(e);
    }
  }

  /**
   * At the end of a successful build: uploads what this build stored (unless pushing is off), then
   * evicts least recently used local entries beyond the size cap, never one this build used.
   */
  public void finish() throws IOException, InterruptedException {
    if (remote != null && remote.accepts() && remote.available() && !stored.isEmpty()) {
      upload(new ArrayList<>(stored));
    }
    if (readOnly) {
      return;
    }
    int evicted;
    try {
      evicted = local.evict(new LinkedHashSet<>(used));
    } catch (IOException e) {
      unwritable(e);
      return;
    }
    if (evicted > 0) {
      log.info("Cache: evicted " + evicted + " least recently used entries to stay under the size cap");
    }
  }

  private void upload(List<CacheEntry> entries) throws InterruptedException {
    List<Callable<Long>> tasks = new ArrayList<>();
    for (CacheEntry entry : entries) {
      tasks.add(() -> {
        if (!remote.available()) {
          return -1L;
        }
        try (Trace.Span span = Trace.current().span("upload " + kind(entry), "cache")) {
          remote.store(entry);
          return entry.bytes();
        } catch (StorageException e) {
          return -1L;
        }
      });
    }
    BoundedPool.run("kernel-cache-upload", UPLOADS_AT_ONCE, tasks, (done, total, bytes) -> {
      if (bytes >= 0) {
        uploaded++;
        uploadedBytes += bytes;
      }
    });
  }

  private static String kind(CacheEntry entry) {
    return entry.kind().folder() + " " + entry.key().substring(0, 12);
  }

  public Stats stats() {
    return new Stats((int) localHits.get(), localBytes.get(), (int) remoteHits.get(), remoteBytes.get(),
        remoteNanos.get() / 1_000_000, uploaded, uploadedBytes, remote == null ? 0 : remote.failures(), remote != null);
  }
}
