package io.github.kernelarchive.util;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
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
  /** 2: paths as length-prefixed UTF-8 and hashes as hex bytes (1 used writeUTF, a loop per character). */
  private static final int VERSION = 2;
  private static final int HEX_LENGTH = 64;
  /** Files modified more recently than this before hashing are re-read next time. */
  private static final long SETTLE_MILLIS = 2_000;

  /** What a file looked like when it was hashed; {@code settled}: old enough to be trusted later. */
  private record Stamp(long size, long modifiedMillis, String sha256, boolean settled) {}

  private final Map<String, Stamp> previous;
  private final ConcurrentHashMap<Path, Optional<String>> hashes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Stamp> stamps = new ConcurrentHashMap<>();
  /**
   * How many of the stamps in use the file accounts for, as loaded or last saved; -1: unknown
   * (missing or damaged). With nothing learnt since, the file accounts for every stamp in use until
   * their number passes this: loaded, the stamps in use are some of its own (those of files this
   * build did not look at are kept, and checked when used); saved, it holds those that were in use
   * then, but the unsettled ones it leaves out on purpose.
   */
  private int onDisk;
  /** The file {@link #onDisk} counts; null: none. */
  private Path heldBy;
  /** The file these stamps were loaded from, which {@link #save()} writes; null: kept in memory only. */
  private final Path home;
  /** Whether a stamp the file does not hold was taken since it was loaded or saved. */
  private volatile boolean learnt;

  public ContentHashes() {
    this(Map.of(), null, -1, null);
  }

  private ContentHashes(Map<String, Stamp> previous, Path heldBy, int onDisk, Path home) {
    this.previous = previous;
    this.heldBy = heldBy;
    this.onDisk = onDisk;
    this.home = home;
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
    Stamp remembered = attributes == null ? null : current(normal.toString(), attributes);
    if (remembered != null) {
      hashes.put(normal, Optional.of(remembered.sha256()));
      return Optional.of(remembered.sha256());
    }
    Stamp stamp = attributes == null ? null : previous.get(normal.toString());
    if (stamp == null || !stamp.settled() || stamp.size() != attributes.size()
        || stamp.modifiedMillis() != attributes.lastModifiedTime().toMillis()) {
      return Optional.empty();
    }
    stamps.put(normal.toString(), stamp);
    hashes.put(normal, Optional.of(stamp.sha256()));
    return Optional.of(stamp.sha256());
  }

  /**
   * Records a hash the caller took itself while reading the file, at the size and time it had then:
   * saved for the next build, and used in this one while the file still has that size and time
   * (kept as a stamp only: the archive stage remembers 50,000 objects at once, and this build
   * rarely asks for them again).
   */
  public void remember(Path file, String sha256, long size, long modifiedMillis) {
    stamps.put(Paths.absoluteText(file), new Stamp(size, modifiedMillis, sha256,
        modifiedMillis < System.currentTimeMillis() - SETTLE_MILLIS));
    learnt = true; // after the stamp is in: a save running meanwhile then writes again next time
  }

  /** The stamp this build took or remembered of {@code key}, when the file still has its size and time. */
  private Stamp current(String key, BasicFileAttributes attributes) {
    Stamp mine = stamps.get(key);
    return mine != null && mine.size() == attributes.size()
        && mine.modifiedMillis() == attributes.lastModifiedTime().toMillis() ? mine : null;
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
    Stamp remembered = current(key, attributes);
    if (remembered != null) {
      return Optional.of(remembered.sha256());
    }
    Stamp known = previous.get(key);
    if (known != null && known.settled() && known.size() == size && known.modifiedMillis() == modified) {
      stamps.put(key, known);
      return Optional.of(known.sha256());
    }
    try {
      String sha = Hashing.ofFile(file);
      stamps.put(key, new Stamp(size, modified, sha, modified < System.currentTimeMillis() - SETTLE_MILLIS));
      learnt = true;
      return Optional.of(sha);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Loads the stamps of the previous build; a missing or foreign file just means hashing everything. */
  public static ContentHashes load(Path file) {
    try {
      ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file));
      if (in.getInt() != MAGIC || in.getInt() != VERSION) {
        return new ContentHashes(Map.of(), null, -1, file);
      }
      int count = in.getInt();
      if (count < 0 || count > in.remaining() / (4 + 16 + HEX_LENGTH)) {
        return new ContentHashes(Map.of(), null, -1, file); // damaged: not a count this file can hold
      }
      Map<String, Stamp> previous = new HashMap<>(count * 2);
      for (int i = 0; i < count; i++) {
        int pathLength = in.getInt();
        String path = new String(in.array(), in.position(), pathLength, StandardCharsets.UTF_8);
        in.position(in.position() + pathLength);
        long size = in.getLong();
        long modified = in.getLong();
        String sha256 = new String(in.array(), in.position(), HEX_LENGTH, StandardCharsets.US_ASCII);
        in.position(in.position() + HEX_LENGTH);
        previous.put(path, new Stamp(size, modified, sha256, true));
      }
      return new ContentHashes(previous, file, count, file);
    } catch (IOException | RuntimeException e) {
      return new ContentHashes(Map.of(), null, -1, file); // missing, truncated or damaged: every file is read again
    }
  }

  /**
   * Saves to the file the stamps were loaded from ({@link #load}); nothing for stamps made in
   * memory. The archive stage saves as soon as it has learnt its objects' hashes, beside the
   * archive's validation, so the build's own save at its end finds nothing new to write.
   */
  public void save() throws IOException {
    if (home != null) {
      save(home);
    }
  }

  /**
   * Saves the settled stamps of every file hashed in this build, for the next one. Laid out in one
   * buffer: it runs at the end of every build, after the link, with thousands of stamps to write.
   * One save at a time: two threads' saves could otherwise land in either order.
   */
  public synchronized void save(Path file) throws IOException {
    if (file.equals(heldBy) && !learnt && stamps.size() <= onDisk) {
      return; // the file already holds every stamp in use (a no-op build writes nothing)
    }
    learnt = false;
    int inUse = stamps.size(); // before the copy: a stamp that comes in meanwhile makes the next save write
    // In no particular order: the next build looks paths up (sorting 50,000 of them took 40 ms).
    // One pass: each settled stamp's path is encoded once, straight after the count.
    ByteArrayOutputStream out = new ByteArrayOutputStream(12 + stamps.size() * (4 + 96 + 16 + HEX_LENGTH));
    ByteBuffer fixed = ByteBuffer.allocate(16 + HEX_LENGTH);
    int count = 0;
    out.writeBytes(new byte[12]); // magic, version and count, filled in below
    for (Map.Entry<String, Stamp> entry : stamps.entrySet()) {
      Stamp stamp = entry.getValue();
      if (!stamp.settled() || stamp.sha256().length() != HEX_LENGTH) {
        continue;
      }
      byte[] path = entry.getKey().getBytes(StandardCharsets.UTF_8);
      fixed.clear().putInt(0, path.length);
      out.write(fixed.array(), 0, 4);
      out.writeBytes(path);
      fixed.clear().putLong(stamp.size()).putLong(stamp.modifiedMillis());
      // The hex digits as bytes in one copy: taken a character at a time, 50,000 stamps made a loop
      // of 3.2 million turns, which the JIT compiled on its own (50 ms of C2's time).
      fixed.put(stamp.sha256().getBytes(StandardCharsets.US_ASCII));
      out.write(fixed.array(), 0, fixed.position());
      count++;
    }
    byte[] bytes = out.toByteArray();
    ByteBuffer.wrap(bytes).putInt(MAGIC).putInt(VERSION).putInt(count);
    try {
      AtomicFiles.write(file, bytes);
    } catch (IOException | RuntimeException e) {
      learnt = true; // the file still holds what it held: the next save writes
      throw e;
    }
    heldBy = file;
    onDisk = inUse;
  }
}
