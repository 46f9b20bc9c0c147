package io.github.kernelarchive.compile;

import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.Hashing;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Content hashes of sources, headers and objects, each file read at most once per build (hundreds
 * of sources share the same headers). Decisions are made on content; to avoid re-reading
 * unchanged files on every build, a hash from the previous build is reused when the file's size
 * and modification time are what they were then — as git's index does. A stamp is only trusted
 * when the file had not been modified for a while when it was hashed, so an edit within the same
 * timestamp tick is never missed.
 */
public final class ContentHashes {
  private static final int MAGIC = 0x4b41_4648; // "KAFH"
  private static final int VERSION = 1;
  /** Files modified more recently than this before hashing are re-read next time. */
  private static final long SETTLE_MILLIS = 2_000;

  /** What a file looked like when it was hashed; {@code settled}: old enough to be trusted later. */
  private record Stamp(long size, long modifiedMillis, String sha256, boolean settled) {}

  private final Map<String, Stamp> previous;
  private final ConcurrentHashMap<Path, Optional<String>> hashes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Stamp> stamps = new ConcurrentHashMap<>();

  public ContentHashes() {
    this(Map.of());
  }

  private ContentHashes(Map<String, Stamp> previous) {
    this.previous = previous;
  }

  /** The file's SHA-256, or empty when it does not exist or cannot be read. */
  public Optional<String> of(Path file) {
    return hashes.computeIfAbsent(file.toAbsolutePath().normalize(), this::read);
  }

  /** The hash this build already took of {@code file}, without reading it; empty when it took none. */
  public Optional<String> hashedEarlier(Path file) {
    if (hashes.isEmpty()) {
      return Optional.empty(); // a clean build without a cache: asked for thousands of objects, no path to resolve
    }
    Optional<String> hash = hashes.get(file.toAbsolutePath().normalize());
    return hash == null ? Optional.empty() : hash;
  }

  /**
   * The hash the previous build recorded, when the file's size and modification time still match
   * it; empty otherwise (then the caller reads the file, and may {@link #remember} what it found).
   */
  public Optional<String> fromStamp(Path file) {
    Path normal = file.toAbsolutePath().normalize();
    Optional<String> known = hashes.get(normal);
    if (known != null) {
      return known;
    }
    BasicFileAttributes attributes = attributesOf(normal);
    Stamp stamp = attributes == null ? null : previous.get(normal.toString());
    if (stamp == null || !stamp.settled() || stamp.size() != attributes.size()
        || stamp.modifiedMillis() != attributes.lastModifiedTime().toMillis()) {
      return Optional.empty();
    }
    stamps.put(normal.toString(), stamp);
    hashes.put(normal, Optional.of(stamp.sha256()));
    return Optional.of(stamp.sha256());
  }

  /** Records a hash the caller took itself while reading the file (as {@link #of} would have). */
  public void remember(Path file, String sha256, long size, long modifiedMillis) {
    Path normal = file.toAbsolutePath().normalize();
    stamps.put(normal.toString(), new Stamp(size, modifiedMillis, sha256,
        modifiedMillis < System.currentTimeMillis() - SETTLE_MILLIS));
    hashes.put(normal, Optional.of(sha256));
  }

  private static BasicFileAttributes attributesOf(Path file) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (attributes.isSymbolicLink()) {
        attributes = Files.readAttributes(file, BasicFileAttributes.class);
      }
      return attributes.isRegularFile() ? attributes : null;
    } catch (IOException e) {
      return null;
    }
  }

  private Optional<String> read(Path file) {
    BasicFileAttributes attributes = attributesOf(file);
    if (attributes == null) {
      return Optional.empty();
    }
    long size = attributes.size();
    long modified = attributes.lastModifiedTime().toMillis();
    String key = file.toString();
    Stamp known = previous.get(key);
    if (known != null && known.settled() && known.size() == size && known.modifiedMillis() == modified) {
      stamps.put(key, known);
      return Optional.of(known.sha256());
    }
    try {
      String sha = Hashing.ofFile(file);
      stamps.put(key, new Stamp(size, modified, sha, modified < System.currentTimeMillis() - SETTLE_MILLIS));
      return Optional.of(sha);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Loads the stamps of the previous build; a missing or foreign file just means hashing everything. */
  public static ContentHashes load(Path file) {
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
      if (in.readInt() != MAGIC || in.readInt() != VERSION) {
        return new ContentHashes();
      }
      int count = in.readInt();
      Map<String, Stamp> previous = new HashMap<>(count * 2);
      for (int i = 0; i < count; i++) {
        previous.put(in.readUTF(), new Stamp(in.readLong(), in.readLong(), in.readUTF(), true));
      }
      return new ContentHashes(previous);
    } catch (IOException | RuntimeException e) {
      return new ContentHashes();
    }
  }

  /** Saves the settled stamps of every file hashed in this build, for the next one. */
  public void save(Path file) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      Map<String, Stamp> settled = new TreeMap<>();
      stamps.forEach((path, stamp) -> {
        if (stamp.settled()) {
          settled.put(path, stamp);
        }
      });
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(settled.size());
      for (Map.Entry<String, Stamp> entry : settled.entrySet()) {
        out.writeUTF(entry.getKey());
        out.writeLong(entry.getValue().size());
        out.writeLong(entry.getValue().modifiedMillis());
        out.writeUTF(entry.getValue().sha256());
      }
    }
    AtomicFiles.write(file, bytes.toByteArray());
  }
}
