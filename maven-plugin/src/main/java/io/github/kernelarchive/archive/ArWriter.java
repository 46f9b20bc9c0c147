package io.github.kernelarchive.archive;

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
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a GNU-format archive: the symbol index first (its offsets are computed from the sizes up
 * front), then the long-name table, then every member. Since every member's position is known
 * before anything is written, members are read by several threads at once, each filling buffers
 * for its own contiguous part of the file (small members gathered into large writes), which one
 * more thread writes ({@link ChunkWriter}). A
 * member comes from a file or from bytes the caller already holds; either way its SHA-256 is taken
 * from exactly the bytes written, so the copy is also the read that hashes it (callers need no
 * separate pass over the payload, and a hash can never describe other bytes than the archive's).
 * Deterministic: zero timestamps, uid and gid, mode 644, so the same members give the same bytes.
 * Members whose names repeat are all kept. Written here because Commons Compress's ar writer
 * writes neither a symbol index (GNU {@code /} or {@code /SYM64/}) nor GNU long names (only BSD
 * ones), and copies members one at a time.
 */
public final class ArWriter {
  private static final long FOUR_GIB = 0xFFFF_FFFFL;
  private static final int WRITE_BUFFER = 1 << 20;
  /** What follows a member of odd size, so the next header starts at an even offset. */
  private static final byte[] PADDING = {'\n'};

  /** Where a member's bytes come from. */
  public sealed interface Content permits FileRange, InMemory {}

  /**
   * Bytes at {@code offset} of {@code file}. Files are opened one at a time while writing, so
   * thousands of members never hold thousands of open files.
   */
  public record FileRange(Path file, long offset) implements Content {}

  /** Bytes the caller has already read. */
  public record InMemory(byte[] bytes) implements Content {}

  /** A member to write: {@code size} bytes from {@code content}, defining {@code symbols}. */
  public record Entry(String name, long size, List<String> symbols, Content content) {
    public Entry {
      symbols = List.copyOf(symbols);
      if (content instanceof InMemory memory && memory.bytes().length != size) {
        throw new IllegalArgumentException("member " + name + " has " + memory.bytes().length + " bytes, not " + size);
      }
    }

    /** {@code size} bytes at {@code offset} of {@code source}. */
    public Entry(String name, Path source, long offset, long size, List<String> symbols) {
      this(name, size, symbols, new FileRange(source, offset));
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
   * What was written: each member's SHA-256 (hex) over the bytes written, in order, and the
   * archive's {@link ArchiveDigest}, taken from the same bytes.
   */
  public record Written(List<String> hashes, String digest) {}

  public static Written write(Path target, List<Entry> entries) throws IOException {
    return write(target, entries, 1);
  }

  /**
   * Writes {@code target} with members read and hashed by up to {@code threads} threads, and
   * written by one more.
   *
   */
  public static Written write(Path target, List<Entry> entries, int threads) throws IOException {
    byte[] longNames = longNameTable(entries);
    Layout layout = layout(entries, longNames.length, 4);
    if (layout.end > FOUR_GIB) {
      layout = layout(entries, longNames.length, 8); // GNU's /SYM64/ for archives past 4 GiB
    }
    List<String> nameFields = nameFields(entries);
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer head = ByteBuffer.allocate((int) layout.membersStart);
      head.put(ArReader.MAGIC);
      putMember(head, layout.width == 8 ? "/SYM64/" : "/", symbolTable(entries, layout));
      if (longNames.length > 0) {
        putMember(head, "//", longNames);
      }
      writeAll(out, head.flip(), 0);
      String[] hashes = new String[entries.size()];
      int parts = Math.max(1, Math.min(threads, entries.size()));
      try (ChunkWriter writer = new ChunkWriter(out, 2 * parts, WRITE_BUFFER)) {
        if (parts == 1) {
          writeMembers(writer, entries, nameFields, layout, 0, entries.size(), hashes);
        } else {
          writeInParallel(writer, entries, nameFields, layout, parts, hashes);
        }
      }
      return new Written(Arrays.asList(hashes), digest(head.array(), entries, nameFields, hashes));
    }
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

  private static void writeInParallel(ChunkWriter writer, List<Entry> entries, List<String> nameFields,
      Layout layout, int parts, String[] hashes) throws IOException {
    ExecutorService pool = Executors.newFixedThreadPool(parts, runnable -> {
      Thread thread = new Thread(runnable, "kernel-ar-reader");
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<Future<Void>> written = new ArrayList<>();
      for (int p = 0; p < parts; p++) {
        int from = (int) ((long) entries.size() * p / parts);
        int to = (int) ((long) entries.size() * (p + 1) / parts);
        written.add(pool.submit(() -> {
          writeMembers(writer, entries, nameFields, layout, from, to, hashes);
          return null;
        }));
      }
      for (Future<Void> part : written) {
        part.get();
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IllegalStateException("archive writer failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing " + entries.size() + " members");
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Reads members [from, to) into buffers, gathering small ones into large positional writes
   * (done by {@code writer}), and puts each one's hash into {@code hashes}.
   */
  private static void writeMembers(ChunkWriter writer, List<Entry> entries, List<String> nameFields, Layout layout,
      int from, int to, String[] hashes) throws IOException {
    if (from >= to) {
      return;
    }
    Filling filling = new Filling(writer, layout.memberOffsets[from]);
    for (int i = from; i < to; i++) {
      Entry entry = entries.get(i);
      filling.put(header(nameFields.get(i), entry.size));
      MessageDigest sha = Hashing.sha256();
      if (entry.content instanceof InMemory memory) {
        sha.update(memory.bytes());
        filling.put(memory.bytes());
      } else {
        copy(filling, entry, (FileRange) entry.content, sha);
      }
      hashes[i] = HexFormat.of().formatHex(sha.digest());
      if ((entry.size & 1) == 1) {
        filling.put(PADDING);
      }
    }
    filling.finish();
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
      for (int done = 0; done < bytes.length; ) {
        ByteBuffer into = room();
        int n = Math.min(into.remaining(), bytes.length - done);
        into.put(bytes, done, n);
        done += n;
      }
    }

    void finish() throws IOException {
      writer.submit(buffer, position);
    }
  }

  /** Appends the member's bytes from its file, hashing them on the way. */
  private static void copy(Filling filling, Entry entry, FileRange range, MessageDigest sha) throws IOException {
    try (FileChannel source = FileChannel.open(range.file(), StandardOpenOption.READ)) {
      for (long copied = 0; copied < entry.size; ) {
        ByteBuffer into = filling.room();
        int start = into.position();
        into.limit(start + (int) Math.min(into.remaining(), entry.size - copied));
        int n = source.read(into, range.offset() + copied);
        into.limit(into.capacity());
        if (n < 0) {
          throw new SourceChangedException(range.file() + " ended before member '" + entry.name
              + "' was copied from it");
        }
        sha.update(into.slice(start, n));
        copied += n;
      }
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

  private record Layout(int width, long membersStart, long[] memberOffsets, long end) {}

  private static Layout layout(List<Entry> entries, int longNamesSize, int width) {
    long position = ArReader.MAGIC.length + paddedMember(symbolTableSize(entries, width));
    if (longNamesSize > 0) {
      position += paddedMember(longNamesSize);
    }
    long membersStart = position;
    long[] offsets = new long[entries.size()];
    for (int i = 0; i < entries.size(); i++) {
      offsets[i] = position;
      position += paddedMember(entries.get(i).size);
    }
    return new Layout(width, membersStart, offsets, position);
  }

  private static long paddedMember(long size) {
    return ArReader.HEADER_SIZE + size + (size & 1);
  }

  private static long symbolTableSize(List<Entry> entries, int width) {
    long size = width;
    for (Entry entry : entries) {
      for (String symbol : entry.symbols) {
        size += width + symbol.getBytes(StandardCharsets.UTF_8).length + 1;
      }
    }
    return size;
  }

  private static byte[] symbolTable(List<Entry> entries, Layout layout) {
    int count = entries.stream().mapToInt(e -> e.symbols.size()).sum();
    ByteBuffer table = ByteBuffer.allocate((int) symbolTableSize(entries, layout.width));
    if (layout.width == 8) {
      table.putLong(count);
    } else {
      table.putInt(count);
    }
    for (int i = 0; i < entries.size(); i++) {
      for (int s = 0; s < entries.get(i).symbols.size(); s++) {
        if (layout.width == 8) {
          table.putLong(layout.memberOffsets[i]);
        } else {
          table.putInt((int) layout.memberOffsets[i]);
        }
      }
    }
    for (Entry entry : entries) {
      for (String symbol : entry.symbols) {
        table.put(symbol.getBytes(StandardCharsets.UTF_8)).put((byte) 0);
      }
    }
    return table.array();
  }

  /** Short names must fit the 16-byte field with their '/' terminator and be plain ASCII. */
  private static boolean needsLongName(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    return bytes.length > 15 || bytes.length != name.length();
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
