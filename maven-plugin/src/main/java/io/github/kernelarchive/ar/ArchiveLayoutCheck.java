package io.github.kernelarchive.ar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Whether an archive on disk is exactly the GNU archive {@link ArWriter} writes of given members:
 * the magic, a symbol index ({@code /} or {@code /SYM64/}) that lists each member's symbols in
 * order at that member, the long-name table when a name needs it, then every member, in order,
 * under its name and at its size, and nothing after the last.
 *
 * <p>Only a yes or a no, for an archive this build has just written: the answer to a no is
 * {@link ArReader}'s full reading, which names what differs. The yes costs far less than that
 * reading, which makes an object of every header and every index entry: the members' places follow
 * from their sizes, so each header is checked where it must be (on all cores, from a mapping of the
 * file), and the index is compared byte by byte with the names it must hold.
 */
public final class ArchiveLayoutCheck {
  private ArchiveLayoutCheck() {}

  /**
   * @param names each member's name, in archive order
   * @param sizes each member's size
   * @param symbols what the index lists for each member, in the order it lists them
   */
  public static boolean matches(Path archive, List<String> names, long[] sizes, List<List<String>> symbols)
      throws IOException {
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
      long fileSize = channel.size();
      if (fileSize > Integer.MAX_VALUE || fileSize < ArReader.MAGIC.length) {
        return false; // a mapping holds 2 GiB at most: the full reading takes such an archive
      }
      return matches(channel.map(FileChannel.MapMode.READ_ONLY, 0, fileSize), names, sizes, symbols);
    }
  }

  private static boolean matches(ByteBuffer file, List<String> names, long[] sizes, List<List<String>> symbols) {
    if (!file.slice(0, ArReader.MAGIC.length).equals(ByteBuffer.wrap(ArReader.MAGIC))) {
      return false;
    }
    int at = ArReader.MAGIC.length;
    int width = isSpecial(file, at, "/") ? 4 : isSpecial(file, at, "/SYM64/") ? 8 : 0;
    long indexSize = width == 0 ? -1 : ArReader.sizeField(file, at);
    if (indexSize < width) {
      return false;
    }
    int index = at + ArReader.HEADER_SIZE;
    long next = index + indexSize + (indexSize & 1);
    int longNames = -1;
    long longNamesSize = 0;
    if (next + ArReader.HEADER_SIZE <= file.limit() && isSpecial(file, (int) next, "//")) {
      longNamesSize = ArReader.sizeField(file, (int) next);
      if (longNamesSize < 0) {
        return false;
      }
      longNames = (int) next + ArReader.HEADER_SIZE;
      next = longNames + longNamesSize + (longNamesSize & 1);
    }
    long[] offsets = new long[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      offsets[i] = next;
      next += ArReader.HEADER_SIZE + sizes[i] + (sizes[i] & 1);
    }
    if (next != file.limit() || longNames + longNamesSize > file.limit()) {
      return false;
    }
    int namesStart = longNames;
    int namesEnd = (int) (longNames + longNamesSize);
    int parts = Math.min(sizes.length, 4 * Runtime.getRuntime().availableProcessors());
    boolean headers = IntStream.range(0, parts).parallel().allMatch(part -> {
      for (int i = (int) ((long) sizes.length * part / parts); i < (long) sizes.length * (part + 1) / parts; i++) {
        if (!isMember(file, (int) offsets[i], names.get(i), sizes[i], namesStart, namesEnd)) {
          return false;
        }
      }
      return true;
    });
    return headers && indexLists(file, index, indexSize, width, offsets, symbols);
  }

  /** Whether the header at {@code at} is that of the special member {@code name} (the index or long names). */
  private static boolean isSpecial(ByteBuffer file, int at, String name) {
    if (at + ArReader.HEADER_SIZE > file.limit()) {
      return false;
    }
    return field(file, at, name, 16) && file.get(at + 58) == '`' && file.get(at + 59) == '\n';
  }

  /**
   * Whether the header at {@code at} names {@code name} at {@code size}, as ArWriter writes it: a
   * short ASCII name and its '/', or '/' and its offset in the long-name table, which holds the
   * name, '/' and a newline there.
   */
  private static boolean isMember(ByteBuffer file, int at, String name, long size, int longNames, int longNamesEnd) {
    if (!ArWriter.needsLongName(name)) {
      return ArReader.isShortMemberHeader(file, at, name, size);
    }
    if (file.get(at + 58) != '`' || file.get(at + 59) != '\n' || ArReader.sizeField(file, at) != size) {
      return false;
    }
    if (longNames < 0 || file.get(at) != '/') {
      return false;
    }
    long offset = 0;
    int i = 1;
    for (; i < 16 && file.get(at + i) >= '0' && file.get(at + i) <= '9'; i++) {
      offset = offset * 10 + (file.get(at + i) - '0');
    }
    if (i == 1 || !field(file, at + i, "", 16 - i)) {
      return false;
    }
    byte[] expected = (name + "/\n").getBytes(StandardCharsets.UTF_8);
    if (longNames + offset + expected.length > longNamesEnd) {
      return false;
    }
    return file.slice((int) (longNames + offset), expected.length).equals(ByteBuffer.wrap(expected));
  }

  /** Whether the {@code width} bytes at {@code at} hold {@code text} (ASCII), then spaces. */
  private static boolean field(ByteBuffer file, int at, String text, int width) {
    for (int i = 0; i < width; i++) {
      if (file.get(at + i) != (i < text.length() ? text.charAt(i) : ' ')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the index (big-endian count and offsets, then NUL-terminated names) lists exactly
   * {@code symbols}, member after member, each at its member's header offset.
   */
  private static boolean indexLists(ByteBuffer file, int index, long indexSize, int width, long[] offsets,
      List<List<String>> symbols) {
    long count = 0;
    for (List<String> member : symbols) {
      count += member.size();
    }
    if (count != (width == 8 ? file.getLong(index) : Integer.toUnsignedLong(file.getInt(index)))
        || (count + 1) * width > indexSize) {
      return false;
    }
    int entry = index + width;
    long name = index + width + count * width;
    long end = index + indexSize;
    for (int m = 0; m < offsets.length; m++) {
      for (String symbol : symbols.get(m)) {
        long offset = width == 8 ? file.getLong(entry) : Integer.toUnsignedLong(file.getInt(entry));
        if (offset != offsets[m] || name + symbol.length() >= end) {
          return false;
        }
        for (int c = 0; c < symbol.length(); c++) {
          char ch = symbol.charAt(c);
          if (ch >= 0x80 || file.get((int) name + c) != ch) {
            return false; // a name that is not ASCII is compared by the full reading
          }
        }
        if (file.get((int) (name + symbol.length())) != 0) {
          return false;
        }
        name += symbol.length() + 1;
        entry += width;
      }
    }
    return true;
  }
}
