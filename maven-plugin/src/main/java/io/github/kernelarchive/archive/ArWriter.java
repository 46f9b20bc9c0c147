package io.github.kernelarchive.archive;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a GNU-format archive in one streaming pass: the symbol index first (its offsets are
 * computed from the sizes up front), then the long-name table, then every member copied straight
 * from where it lies (file to file in the kernel, never through the heap). Deterministic: zero
 * timestamps, uid and gid, mode 644, so the same members give the same bytes. Members whose names
 * repeat are all kept.
 */
public final class ArWriter {
  private static final long FOUR_GIB = 0xFFFF_FFFFL;

  /**
   * A member to write: {@code size} bytes at {@code offset} of the file {@code source}, defining
   * {@code symbols}. Sources are opened one at a time while writing, so thousands of members never
   * hold thousands of open files.
   */
  public record Entry(String name, Path source, long offset, long size, List<String> symbols) {
    public Entry {
      symbols = List.copyOf(symbols);
    }
  }

  private ArWriter() {}

  public static void write(Path target, List<Entry> entries) throws IOException {
    byte[] longNames = longNameTable(entries);
    Layout layout = layout(entries, longNames.length, 4);
    if (layout.end > FOUR_GIB) {
      layout = layout(entries, longNames.length, 8); // GNU's /SYM64/ for archives past 4 GiB
    }
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      writeAll(out, ByteBuffer.wrap(ArReader.MAGIC));
      writeMember(out, layout.width == 8 ? "/SYM64/" : "/", symbolTable(entries, layout));
      if (longNames.length > 0) {
        writeMember(out, "//", longNames);
      }
      int longNameOffset = 0;
      for (Entry entry : entries) {
        String field = entry.name + "/";
        if (needsLongName(entry.name)) {
          field = "/" + longNameOffset;
          longNameOffset += entry.name.getBytes(StandardCharsets.UTF_8).length + 2;
        }
        writeAll(out, ByteBuffer.wrap(header(field, entry.size)));
        try (FileChannel source = FileChannel.open(entry.source, StandardOpenOption.READ)) {
          long copied = 0;
          while (copied < entry.size) {
            long n = source.transferTo(entry.offset + copied, entry.size - copied, out);
            if (n <= 0) {
              throw new IOException(entry.source + " ended before member " + entry.name + " was copied from it");
            }
            copied += n;
          }
        }
        if ((entry.size & 1) == 1) {
          writeAll(out, ByteBuffer.wrap(new byte[] {'\n'}));
        }
      }
    }
  }

  private record Layout(int width, long[] memberOffsets, long end) {}

  private static Layout layout(List<Entry> entries, int longNamesSize, int width) {
    long position = ArReader.MAGIC.length + paddedMember(symbolTableSize(entries, width));
    if (longNamesSize > 0) {
      position += paddedMember(longNamesSize);
    }
    long[] offsets = new long[entries.size()];
    for (int i = 0; i < entries.size(); i++) {
      offsets[i] = position;
      position += paddedMember(entries.get(i).size);
    }
    return new Layout(width, offsets, position);
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

  private static void writeMember(FileChannel out, String name, byte[] content) throws IOException {
    writeAll(out, ByteBuffer.wrap(header(name, content.length)));
    writeAll(out, ByteBuffer.wrap(content));
    if ((content.length & 1) == 1) {
      writeAll(out, ByteBuffer.wrap(new byte[] {'\n'}));
    }
  }

  private static byte[] header(String name, long size) {
    String text = pad(name, 16) + pad("0", 12) + pad("0", 6) + pad("0", 6) + pad("644", 8) + pad(Long.toString(size), 10) + "`\n";
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length != ArReader.HEADER_SIZE) {
      throw new IllegalArgumentException("member name too long for an ar header: " + name);
    }
    return bytes;
  }

  private static String pad(String value, int width) {
    return value + " ".repeat(Math.max(0, width - value.length()));
  }

  private static void writeAll(FileChannel out, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      out.write(buffer);
    }
  }
}
