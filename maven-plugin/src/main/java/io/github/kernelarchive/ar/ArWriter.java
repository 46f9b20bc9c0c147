package io.github.kernelarchive.ar;

import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a GNU-format archive: the symbol index, the long-name table, then every member. Members
 * are read by several threads at once, each filling buffers for its own contiguous part of the file
 * (small members gathered into large writes), which one more thread writes ({@link ChunkWriter}).
 * Each member's SHA-256 is taken from exactly the bytes written, so the copy is also the read that
 * hashes it.
 *
 * <p>The index comes first in the file but is only known once every member has been looked at. When
 * the caller knows each member's symbols, the layout is exact. When an {@link Inspector} finds them
 * from the bytes as they are copied (so each object is read once per build, not once to inspect and
 * once more to copy), the members are written after room kept for the index, sized from the first
 * {@link #SAMPLE} members with half as much again to spare, and the index is written last. What it
 * leaves of that room goes to the long-name table ({@code //}), padded with the newlines GNU ar pads
 * it with; readers find long names by offset, so the padding is never read as a name. If the room
 * is too small after all, the archive is written again with the layout now known exactly. Where
 * the index is a large part of the archive (many symbols in small objects), the spare room would
 * be too: every member is then inspected first and the layout is exact (two reads, as before).
 *
 * <p>Deterministic: zero timestamps, uid and gid, mode 644, and room that depends only on the
 * members, so the same members give the same bytes. Members whose names repeat are all kept.
 * Written here because Commons Compress's ar writer writes neither a symbol index (GNU {@code /}
 * or {@code /SYM64/}) nor GNU long names (only BSD ones), and copies members one at a time.
 */
public final class ArWriter {
  private static final long FOUR_GIB = 0xFFFF_FFFFL;
  private static final int WRITE_BUFFER = 1 << 20;
  /** What follows a member of odd size, so the next header starts at an even offset. */
  private static final byte[] PADDING = {'\n'};
  /** How many leading members are inspected before the write, to size the room for the index. */
  static final int SAMPLE = 32;
  /**
   * Room is kept for an index expected to take at most this share of the members' bytes; the spare
   * room (about half the index) then grows the archive by at most about 1.6 %.
   */
  private static final int ROOM_SHARE = 32;
  /**
   * Members up to this size are read whole into a buffer the reading thread reuses; larger ones
   * are mapped. Reading from the page cache copies at 18-20 GB/s here, about 50 us per MiB; a
   * mapping costs a few tens of microseconds whatever the size, and its unmapping later (5,000
   * unmappings of 64 KiB objects took the JVM's reference-handler thread 115 ms), so about 1 MiB is
   * where the two meet.
   */
  static final int REUSE_LIMIT = 1 << 20;
  /** An archive whose members are copied ({@link FileRange#storedAs}) is mapped whole up to this size. */
  private static final long MAP_LIMIT = 1L << 30;

  /**
   * Where a member's bytes are: at {@code offset} of {@code file}. Files are opened one at a time
   * while writing, so thousands of members never hold thousands of open files.
   *
   * @param storedAs when the bytes are a member of another archive, the name its header must give
   *     (a short name, as the header's name field holds it before the '/'); they are then read with
   *     that header, which must name them at their size, or the write fails. {@code null}: a file's
   *     bytes, or a member whose header was read already
   */
  public record FileRange(Path file, long offset, String storedAs) {
    public FileRange(Path file, long offset) {
      this(file, offset, null);
    }
  }

  /**
   * A member to write: {@code size} bytes from {@code content}, defining {@code symbols} (not read
   * when an {@link Inspector} finds them).
   */
  public record Entry(String name, long size, List<String> symbols, FileRange content) {
    public Entry {
      symbols = List.copyOf(symbols);
    }

    /** {@code size} bytes at {@code offset} of {@code source}. */
    public Entry(String name, Path source, long offset, long size, List<String> symbols) {
      this(name, size, symbols, new FileRange(source, offset));
    }

    /** {@code size} bytes of {@code source}, whose symbols an {@link Inspector} finds. */
    public Entry(String name, Path source, long size) {
      this(name, size, List.of(), new FileRange(source, 0));
    }
  }

  /**
   * Looks at each member's bytes as they are read for the copy: may refuse the member, and gives
   * the symbols the index lists for it. Called from several threads at once, for each member at
   * least once (the first {@link #SAMPLE} twice: once to size the index's room, once as copied).
   */
  @FunctionalInterface
  public interface Inspector {
    /** @param bytes the member's whole content, position to limit (read only) */
    List<String> symbols(int member, ByteBuffer bytes) throws RejectedMember;
  }

  /** A member an {@link Inspector} refused; nothing was published. */
  public static final class RejectedMember extends Exception {
    private final int member;

    public RejectedMember(int member, String message) {
      super(message);
      this.member = member;
    }

    /** Its position in the archive, from 0. */
    public int member() {
      return member;
    }
  }

  /** A source file ended before its member's size; nothing was published. */
  public static final class SourceChangedException extends IOException {
    SourceChangedException(String message) {
      super(message);
    }
  }

  private ArWriter() {}

  /**
   * What was written: each member's SHA-256 (hex) over the bytes written and the symbols the index
   * lists for it, in order, and the archive's {@link ArchiveDigest}, taken from the same bytes.
   */
  public record Written(List<String> hashes, List<List<String>> symbols, String digest) {}

  public static Written write(Path target, List<Entry> entries) throws IOException {
    return write(target, entries, 1);
  }

  /**
   * Writes {@code target} with the symbols each entry names, members read and hashed by up to
   * {@code threads} threads and written by one more.
   */
  public static Written write(Path target, List<Entry> entries, int threads) throws IOException {
    try {
      return write(target, entries, threads, null);
    } catch (RejectedMember e) {
      throw new IllegalStateException("no inspector, so nothing is refused", e);
    }
  }

  /**
   * Writes {@code target} with each member's symbols from {@code inspector} ({@code null}: from
   * its entry), reading each member once for the inspection, the hash and the copy.
   *
   * @throws RejectedMember for the first member in archive order that the inspector refused
   */
  public static Written write(Path target, List<Entry> entries, int threads, Inspector inspector)
      throws IOException, RejectedMember {
    byte[] longNames = longNameTable(entries);
    List<String> nameFields = nameFields(entries);
    List<List<String>> symbols = new ArrayList<>(Collections.nCopies(entries.size(), List.of()));
    Layout planned;
    if (inspector == null) {
      for (int i = 0; i < entries.size(); i++) {
        symbols.set(i, entries.get(i).symbols);
      }
      planned = Layout.exact(entries, symbols, longNames.length);
    } else {
      planned = roomForIndex(entries, threads, inspector, longNames.length);
    }
    String[] hashes = new String[entries.size()];
    byte[] head;
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      int parts = Math.max(1, Math.min(threads, entries.size()));
      try (ChunkWriter writer = new ChunkWriter(out, 2 * parts, WRITE_BUFFER)) {
        inParallel(parts, entries.size(),
            (from, to) -> writeMembers(writer, entries, nameFields, planned, from, to, hashes, inspector, symbols));
      }
      head = head(planned, symbols, longNames);
      if (head != null) {
        writeAll(out, ByteBuffer.wrap(head), 0);
      }
    }
    if (head == null) {
      return writeAgainExactly(target, entries, threads, symbols, Arrays.asList(hashes));
    }
    return new Written(Arrays.asList(hashes), symbols, digest(head, entries, nameFields, hashes));
  }

  /**
   * The room kept for the index was too small (the first members defined fewer symbols than the
   * rest): writes the archive again with the symbols now known, which must come with the same bytes.
   */
  private static Written writeAgainExactly(Path target, List<Entry> entries, int threads,
      List<List<String>> symbols, List<String> hashes) throws IOException {
    List<Entry> known = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      Entry entry = entries.get(i);
      known.add(new Entry(entry.name, entry.size, symbols.get(i), entry.content));
    }
    Written again = write(target, known, threads);
    for (int i = 0; i < hashes.size(); i++) {
      if (!again.hashes().get(i).equals(hashes.get(i))) {
        throw new SourceChangedException(entries.get(i).content.file() + " changed while the archive was written");
      }
    }
    return again;
  }

  /**
   * The layout with room for the index sized from the first {@link #SAMPLE} members, by count and
   * by size (whichever gives more), and half as much again; exact when those are all the members,
   * or when the index would be a large share of the archive (every member inspected first).
   */
  private static Layout roomForIndex(List<Entry> entries, int threads, Inspector inspector, int longNamesSize)
      throws IOException, RejectedMember {
    int sampled = Math.min(SAMPLE, entries.size());
    List<List<String>> sample = new ArrayList<>(sampled);
    try (MemberReader reader = new MemberReader()) {
      for (int i = 0; i < sampled; i++) {
        try {
          sample.add(inspector.symbols(i, reader.read(entries.get(i)).asReadOnlyBuffer()));
        } catch (InternalError fault) {
          throw cutShort(entries.get(i), fault);
        }
      }
    }
    if (sampled == entries.size()) {
      return Layout.exact(entries, sample, longNamesSize);
    }
    long sampledBytes = 0;
    long allBytes = 0;
    for (int i = 0; i < entries.size(); i++) {
      allBytes += entries.get(i).size;
      sampledBytes += i < sampled ? entries.get(i).size : 0;
    }
    for (int width : new int[] {4, 8}) {
      long sampledIndex = symbolTableSize(sample, width) - width;
      double byCount = (double) sampledIndex * entries.size() / sampled;
      double bySize = sampledBytes == 0 ? byCount : (double) sampledIndex * allBytes / sampledBytes;
      double expected = Math.max(byCount, bySize);
      if (expected * ROOM_SHARE > allBytes) {
        break;
      }
      Layout layout = Layout.withRoom(entries, width, width + (long) Math.ceil(1.5 * expected) + 4096, longNamesSize);
      if (layout.end <= FOUR_GIB) {
        return layout;
      }
      // Past 4 GiB, offsets need GNU's /SYM64/ and its 8-byte fields.
    }
    return Layout.exact(entries, inspectAll(entries, threads, inspector), longNamesSize);
  }

  /** Every member's symbols, read on up to {@code threads} threads; nothing is written. */
  private static List<List<String>> inspectAll(List<Entry> entries, int threads, Inspector inspector)
      throws IOException, RejectedMember {
    List<List<String>> symbols = new ArrayList<>(Collections.nCopies(entries.size(), List.of()));
    inParallel(threads, entries.size(), (from, to) -> {
      try (MemberReader reader = new MemberReader()) {
        for (int i = from; i < to; i++) {
          try {
            symbols.set(i, List.copyOf(inspector.symbols(i, reader.read(entries.get(i)).asReadOnlyBuffer())));
          } catch (InternalError fault) {
            throw cutShort(entries.get(i), fault);
          }
        }
      }
    });
    return symbols;
  }

  /**
   * The bytes before the first member: magic, index and long-name table (with the rest of the room
   * as its padding); {@code null} when they do not fit before the members as placed.
   */
  private static byte[] head(Layout layout, List<List<String>> symbols, byte[] longNames) {
    int width = layout.width;
    long indexSize = symbolTableSize(symbols, width);
    if (layout.exact() && indexSize != layout.indexSize) {
      return null; // laid out for the sampled symbols, and a member read again defined others
    }
    long afterIndex = ArReader.MAGIC.length + paddedMember(indexSize);
    long gap = layout.membersStart - afterIndex;
    boolean fits = layout.exact() || (gap == 0 && longNames.length == 0) || gap - ArReader.HEADER_SIZE >= longNames.length;
    if (!fits) {
      return null;
    }
    ByteBuffer head = ByteBuffer.allocate((int) layout.membersStart);
    head.put(ArReader.MAGIC);
    putMember(head, width == 8 ? "/SYM64/" : "/", symbolTable(symbols, layout, indexSize));
    if (layout.exact() && longNames.length > 0) {
      putMember(head, "//", longNames);
    } else if (head.hasRemaining()) {
      byte[] table = Arrays.copyOf(longNames, (int) (head.remaining() - ArReader.HEADER_SIZE));
      Arrays.fill(table, longNames.length, table.length, (byte) '\n');
      putMember(head, "//", table);
    }
    if (head.hasRemaining()) {
      throw new IllegalStateException("archive head of " + head.position() + " bytes where " + head.capacity()
          + " were laid out");
    }
    return head.array();
  }

  /**
   * The archive's digest from the bytes written, in file order: the head, then each member's
   * header, hash (for its data) and padding. {@link ArchiveDigest#of} computes the same by reading
   * the file; here it costs no second read of thousands of headers (20-25 ms for 5,000 members).
   */
  private static String digest(byte[] head, List<Entry> entries, List<String> nameFields, String[] hashes) {
    ArchiveDigest.Builder digest = new ArchiveDigest.Builder().bytes(head);
    for (int i = 0; i < entries.size(); i++) {
      digest.bytes(header(nameFields.get(i), entries.get(i).size)).member(hashes[i]);
      if ((entries.get(i).size & 1) == 1) {
        digest.bytes(PADDING);
      }
    }
    return digest.finish();
  }

  /** Work on members [from, to). */
  private interface Range {
    void run(int from, int to) throws IOException, RejectedMember;
  }

  /**
   * Cuts members [0, count) into up to {@code threads} contiguous ranges and runs each on a thread
   * of its own; throws the failure of the first range in archive order that failed.
   */
  private static void inParallel(int threads, int count, Range range) throws IOException, RejectedMember {
    int parts = Math.max(1, Math.min(threads, count));
    if (parts == 1) {
      range.run(0, count);
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(parts, runnable -> {
      Thread thread = new Thread(runnable, "kernel-ar-reader");
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<Future<Void>> ranges = new ArrayList<>();
      for (int p = 0; p < parts; p++) {
        int from = (int) ((long) count * p / parts);
        int to = (int) ((long) count * (p + 1) / parts);
        ranges.add(pool.submit(() -> {
          range.run(from, to);
          return null;
        }));
      }
      for (Future<Void> part : ranges) {
        try {
          part.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RejectedMember rejected) {
            throw rejected;
          }
          if (e.getCause() instanceof IOException io) {
            throw io;
          }
          throw new IllegalStateException("archive writer failed", e.getCause());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading " + count + " members");
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Reads members [from, to), each once: the inspector looks at the bytes, they are hashed and put
   * into buffers (small members gathered into large positional writes, done by {@code writer}).
   */
  private static void writeMembers(ChunkWriter writer, List<Entry> entries, List<String> nameFields, Layout layout,
      int from, int to, String[] hashes, Inspector inspector, List<List<String>> symbols)
      throws IOException, RejectedMember {
    if (from >= to) {
      return;
    }
    // One digest per thread, reset by each digest(): a new one per member cost a provider lookup
    // and, for the direct buffers hashed here, a 4 KiB copy buffer of its own (20 MB for 5,000 members).
    MessageDigest sha = Hashing.sha256();
    Filling filling = new Filling(writer, layout.memberOffsets[from]);
    try (MemberReader reader = new MemberReader()) {
      for (int i = from; i < to; i++) {
        Entry entry = entries.get(i);
        try {
          ByteBuffer bytes = reader.read(entry);
          if (inspector != null) {
            symbols.set(i, List.copyOf(inspector.symbols(i, bytes.asReadOnlyBuffer())));
          }
          filling.put(header(nameFields.get(i), entry.size));
          sha.update(bytes.duplicate());
          filling.put(bytes);
        } catch (InternalError fault) {
          throw cutShort(entry, fault);
        }
        hashes[i] = HexFormat.of().formatHex(sha.digest());
        if ((entry.size & 1) == 1) {
          filling.put(PADDING);
        }
      }
    }
    filling.finish();
  }

  /**
   * Gives a member's whole content as one buffer: read into a buffer this reader reuses, or mapped
   * when larger than {@link #REUSE_LIMIT}; a member of another archive ({@link FileRange#storedAs},
   * a batch that holds its members' bytes) is a slice of that archive, mapped whole once. One per
   * thread. A file stays open, or mapped, while the members that follow are read from it too:
   * thousands of members then cost one open, not one each.
   */
  static final class MemberReader implements AutoCloseable {
    private ByteBuffer buffer = ByteBuffer.allocateDirect(0);
    private Path openFile;
    private FileChannel source;
    /** The archive whose members are being read ({@link FileRange#storedAs}), mapped whole; null: none. */
    private Path mappedFile;
    private ByteBuffer mapped;

    /** The member's bytes, position 0 to its size; valid until the next call. */
    ByteBuffer read(Entry entry) throws IOException {
      FileRange range = entry.content;
      if (range.storedAs() != null && map(range.file()) != null) {
        // A member of another archive (a batch): a slice of that archive, mapped once, with the
        // header in front. 25,000 members a batch cost a read each otherwise.
        long header = range.offset() - ArReader.HEADER_SIZE;
        if (header < 0 || range.offset() + entry.size > mapped.limit()) {
          throw endedEarly(entry);
        }
        ByteBuffer member = mapped.slice((int) header, ArReader.HEADER_SIZE + (int) entry.size);
        checkHeader(member, entry);
        return member.position(ArReader.HEADER_SIZE).slice();
      }
      FileChannel source = open(range.file());
      if (entry.size > REUSE_LIMIT) {
        if (source.size() < range.offset() + entry.size) {
          throw endedEarly(entry);
        }
        if (range.storedAs() != null) {
          checkHeader(fill(source, entry, range.offset() - ArReader.HEADER_SIZE, ArReader.HEADER_SIZE), entry);
        }
        return source.map(FileChannel.MapMode.READ_ONLY, range.offset(), entry.size);
      }
      if (range.storedAs() == null) {
        return fill(source, entry, range.offset(), (int) entry.size);
      }
      // With the header in front, in the same read.
      ByteBuffer member = fill(source, entry, range.offset() - ArReader.HEADER_SIZE,
          ArReader.HEADER_SIZE + (int) entry.size);
      checkHeader(member, entry);
      return member.position(ArReader.HEADER_SIZE).slice();
    }

    /** {@code length} bytes from {@code position} in this reader's buffer, position 0 to length. */
    private ByteBuffer fill(FileChannel source, Entry entry, long position, int length) throws IOException {
      if (position < 0) {
        throw endedEarly(entry);
      }
      if (buffer.capacity() < length) {
        buffer = ByteBuffer.allocateDirect(Math.max(length, (int) Math.min(2L * buffer.capacity(), REUSE_LIMIT)));
      }
      ByteBuffer into = buffer.clear().limit(length);
      while (into.hasRemaining()) {
        if (source.read(into, position + into.position()) < 0) {
          throw endedEarly(entry);
        }
      }
      return into.flip();
    }

    /** {@code file} mapped whole (the last one this reader mapped, or now); null when it is too large to map. */
    private ByteBuffer map(Path file) throws IOException {
      if (!file.equals(mappedFile)) {
        mapped = null;
        mappedFile = file;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
          if (channel.size() <= MAP_LIMIT) {
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
          }
        }
      }
      return mapped;
    }

    private FileChannel open(Path file) throws IOException {
      if (!file.equals(openFile)) {
        closeSource();
        source = FileChannel.open(file, StandardOpenOption.READ);
        openFile = file;
      }
      return source;
    }

    @Override
    public void close() throws IOException {
      mapped = null; // unmapped once collected
      mappedFile = null;
      closeSource();
    }

    private void closeSource() throws IOException {
      if (source != null) {
        FileChannel open = source;
        source = null;
        openFile = null;
        open.close();
      }
    }
  }

  /**
   * Fails unless {@code header} (its first 60 bytes) is the header of a member stored under {@code
   * entry}'s {@link FileRange#storedAs} name at its size, as {@code ar} writes one.
   */
  private static void checkHeader(ByteBuffer header, Entry entry) throws SourceChangedException {
    // Date, owner, group and mode are whatever the archiver wrote; the name, size and terminator are checked.
    if (!ArReader.isShortMemberHeader(header, 0, entry.content.storedAs(), entry.size)) {
      throw new SourceChangedException(entry.content.file() + " does not hold member '" + entry.content.storedAs()
          + "' of " + entry.size + " bytes at offset " + (entry.content.offset() - ArReader.HEADER_SIZE)
          + " (its header reads '" + StandardCharsets.ISO_8859_1.decode(header.slice(0, ArReader.HEADER_SIZE))
          .toString().strip() + "')");
    }
  }

  /**
   * A mapped member (of a batch that holds it, or an object over {@link #REUSE_LIMIT}) whose file
   * was cut short while it was read: the JVM raises an {@code InternalError} where a page past the
   * new end is touched. Any other {@code InternalError} is thrown as it is.
   */
  private static SourceChangedException cutShort(Entry entry, InternalError fault) {
    if (fault.getMessage() == null || !fault.getMessage().contains("unsafe memory access")) {
      throw fault;
    }
    return new SourceChangedException(entry.content.file() + " was cut short while member '" + entry.name
        + "' was read from it (is another process writing it?)");
  }

  private static SourceChangedException endedEarly(Entry entry) {
    return new SourceChangedException(entry.content.file() + " ended before member '" + entry.name + "' was copied from it");
  }

  /** The buffer a thread is filling, and where in the file its contents go. */
  private static final class Filling {
    private final ChunkWriter writer;
    private ByteBuffer buffer;
    private long position;

    Filling(ChunkWriter writer, long position) throws IOException {
      this.writer = writer;
      this.buffer = writer.take();
      this.position = position;
    }

    /** The current buffer, with room for at least one byte. */
    ByteBuffer room() throws IOException {
      if (!buffer.hasRemaining()) {
        position = writer.submit(buffer, position);
        buffer = writer.take();
      }
      return buffer;
    }

    void put(byte[] bytes) throws IOException {
      put(ByteBuffer.wrap(bytes));
    }

    /** Copies {@code bytes} (position to limit), across as many buffers as it takes. */
    void put(ByteBuffer bytes) throws IOException {
      while (bytes.hasRemaining()) {
        ByteBuffer into = room();
        int n = Math.min(into.remaining(), bytes.remaining());
        into.put(into.position(), bytes, bytes.position(), n).position(into.position() + n);
        bytes.position(bytes.position() + n);
      }
    }

    void finish() throws IOException {
      writer.submit(buffer, position);
    }
  }

  /** Each member's 16-byte name field: the name and '/', or '/offset' into the long-name table. */
  private static List<String> nameFields(List<Entry> entries) {
    List<String> fields = new ArrayList<>(entries.size());
    int longNameOffset = 0;
    for (Entry entry : entries) {
      if (needsLongName(entry.name)) {
        fields.add("/" + longNameOffset);
        longNameOffset += entry.name.getBytes(StandardCharsets.UTF_8).length + 2;
      } else {
        fields.add(entry.name + "/");
      }
    }
    return fields;
  }

  /**
   * Where the members go. {@code indexSize} is the index's size when the head is laid out exactly
   * for it, and -1 when room was kept for an index not yet known (up to {@code membersStart}).
   */
  private record Layout(int width, long indexSize, long membersStart, long[] memberOffsets, long end) {
    boolean exact() {
      return indexSize >= 0;
    }

    /** The head exactly as long as the index of {@code symbols} and the long names need. */
    static Layout exact(List<Entry> entries, List<List<String>> symbols, int longNamesSize) {
      Layout layout = exact(entries, symbols, longNamesSize, 4);
      return layout.end <= FOUR_GIB ? layout : exact(entries, symbols, longNamesSize, 8);
    }

    private static Layout exact(List<Entry> entries, List<List<String>> symbols, int longNamesSize, int width) {
      long indexSize = symbolTableSize(symbols, width);
      long position = ArReader.MAGIC.length + paddedMember(indexSize);
      if (longNamesSize > 0) {
        position += paddedMember(longNamesSize);
      }
      return place(entries, width, indexSize, position);
    }

    /** Room for an index of {@code indexRoom} bytes and its header, then for the long-name table. */
    static Layout withRoom(List<Entry> entries, int width, long indexRoom, int longNamesSize) {
      return place(entries, width, -1, ArReader.MAGIC.length + paddedMember(indexRoom) + paddedMember(longNamesSize));
    }

    private static Layout place(List<Entry> entries, int width, long indexSize, long membersStart) {
      long position = membersStart;
      long[] offsets = new long[entries.size()];
      for (int i = 0; i < entries.size(); i++) {
        offsets[i] = position;
        position += paddedMember(entries.get(i).size);
      }
      return new Layout(width, indexSize, membersStart, offsets, position);
    }
  }

  private static long paddedMember(long size) {
    return ArReader.HEADER_SIZE + size + (size & 1);
  }

  private static long symbolTableSize(List<List<String>> symbols, int width) {
    long size = width;
    for (List<String> member : symbols) {
      for (String symbol : member) {
        size += width + utf8Length(symbol) + 1;
      }
    }
    return size;
  }

  private static byte[] symbolTable(List<List<String>> symbols, Layout layout, long size) {
    int count = symbols.stream().mapToInt(List::size).sum();
    ByteBuffer table = ByteBuffer.allocate((int) size);
    if (layout.width == 8) {
      table.putLong(count);
    } else {
      table.putInt(count);
    }
    for (int i = 0; i < symbols.size(); i++) {
      for (int s = 0; s < symbols.get(i).size(); s++) {
        if (layout.width == 8) {
          table.putLong(layout.memberOffsets[i]);
        } else {
          table.putInt((int) layout.memberOffsets[i]);
        }
      }
    }
    for (List<String> member : symbols) {
      for (String symbol : member) {
        if (isAscii(symbol)) {
          for (int c = 0; c < symbol.length(); c++) {
            table.put((byte) symbol.charAt(c));
          }
        } else {
          table.put(symbol.getBytes(StandardCharsets.UTF_8));
        }
        table.put((byte) 0);
      }
    }
    return table.array();
  }

  /**
   * The length of {@code text} in UTF-8, without encoding it when it is ASCII (as symbol names are:
   * tens of thousands of them are measured and written once each, before and after the members).
   */
  private static int utf8Length(String text) {
    return isAscii(text) ? text.length() : text.getBytes(StandardCharsets.UTF_8).length;
  }

  private static boolean isAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  /**
   * Short names must fit the 16-byte field with their '/' terminator and be plain ASCII. Looked at
   * char by char: encoding each of 50,000 names (twice) showed in profiles, before any member is read.
   */
  static boolean needsLongName(String name) {
    return name.length() > 15 || !isAscii(name);
  }

  private static byte[] longNameTable(List<Entry> entries) {
    List<byte[]> names = new ArrayList<>();
    int size = 0;
    for (Entry entry : entries) {
      if (needsLongName(entry.name)) {
        byte[] name = (entry.name + "/\n").getBytes(StandardCharsets.UTF_8);
        names.add(name);
        size += name.length;
      }
    }
    ByteBuffer table = ByteBuffer.allocate(size);
    names.forEach(table::put);
    return table.array();
  }

  private static void putMember(ByteBuffer into, String name, byte[] content) {
    into.put(header(name, content.length)).put(content);
    if ((content.length & 1) == 1) {
      into.put((byte) '\n');
    }
  }

  /**
   * A member header's fixed part: zero date, uid and gid, mode 644 (deterministic, as {@code ar D}
   * writes), the terminator, and spaces where the name and size go.
   */
  private static final byte[] HEADER_TEMPLATE = (" ".repeat(16) // name
      + "0" + " ".repeat(11) // date
      + "0" + " ".repeat(5) // uid
      + "0" + " ".repeat(5) // gid
      + "644" + " ".repeat(5) // mode
      + " ".repeat(10) // size
      + "`\n").getBytes(StandardCharsets.US_ASCII);

  /** The 60-byte header of a member named {@code name} (its name field: ASCII) of {@code size} bytes. */
  private static byte[] header(String name, long size) {
    byte[] header = HEADER_TEMPLATE.clone();
    putAscii(header, 0, 16, name);
    putAscii(header, 48, 10, Long.toString(size));
    return header;
  }

  /** Copies {@code text} to the start of a {@code width}-byte field (byte by byte: it is ASCII). */
  private static void putAscii(byte[] header, int field, int width, String text) {
    if (text.length() > width) {
      throw new IllegalArgumentException("'" + text + "' does not fit an ar header field of " + width + " bytes");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c > 0x7e) {
        throw new IllegalArgumentException("ar header field '" + text + "' is not ASCII");
      }
      header[field + i] = (byte) c;
    }
  }

  private static void writeAll(FileChannel out, ByteBuffer buffer, long position) throws IOException {
    while (buffer.hasRemaining()) {
      position += out.write(buffer, position);
    }
  }
}
