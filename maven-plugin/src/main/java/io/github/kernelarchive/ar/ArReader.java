package io.github.kernelarchive.ar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the table of contents of a System V/GNU archive (what GNU ar and llvm-ar write on Linux):
 * the members in order, the symbol index ({@code /} or {@code /SYM64/}) and long names
 * ({@code //}); BSD {@code #1/len} names too; and thin archives ({@code !<thin>}, what the batches
 * are). A truncated or damaged archive is reported with the offset where it goes wrong. Only
 * headers are read: each member's content is passed over by its offset, never read.
 *
 * <p>Not Commons Compress's {@code ArArchiveInputStream}, which this class used for regular
 * archives until it measured what that costs: the stream passes over a member's content through
 * commons-io's {@code IOUtils.skip}, which zero-fills an 8 KiB scratch array for every 8 KiB passed
 * (41,000 times for a 334 MB archive), so validating the archive a build had just written took
 * 75-100 ms against 24-32 ms here. It also lacks what an archive's validation needs: the symbol
 * index comes back as an unparsed entry, header offsets (which the index points at) are not
 * reported, a member that runs past the end just stops the listing, BSD names keep their NUL
 * padding, thin archives are not read, and names are decoded as US-ASCII; this reader handled those
 * cases already, so it now reads every archive.
 */
public final class ArReader {
  static final byte[] MAGIC = "!<arch>\n".getBytes(StandardCharsets.US_ASCII);
  static final byte[] THIN_MAGIC = "!<thin>\n".getBytes(StandardCharsets.US_ASCII);
  public static final int HEADER_SIZE = 60;

  /** The symbol index: each name and the header offset of the member that defines it. */
  public record IndexEntry(String symbol, long memberOffset) {}

  /** Members in archive order, and the index ({@code null} when the archive has none). */
  public record Contents(List<ArMember> members, List<IndexEntry> index, long fileSize) {}

  private ArReader() {}

  public static Contents read(Path archive) throws IOException, ArFormatException {
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
      return read(channel);
    }
  }

  public static Contents read(FileChannel channel) throws IOException, ArFormatException {
    return scan(channel, false);
  }

  private static void checkMagic(FileChannel channel, long size, boolean thin) throws IOException, ArFormatException {
    ByteBuffer magic = readFully(channel, 0, MAGIC.length, size, "archive magic");
    if (!magic.equals(ByteBuffer.wrap(thin ? THIN_MAGIC : MAGIC))) {
      String start = StandardCharsets.ISO_8859_1.decode(magic.rewind()).toString();
      throw new ArFormatException(thin ? "not a thin archive (no '!<thin>' magic)"
          : start.startsWith("!<thin>") ? "thin archive: members are not stored inside it"
          : "no '!<arch>' magic: not an ar archive");
    }
  }

  /**
   * The members of a thin archive ({@code !<thin>}, what {@code ar --thin} writes): headers and
   * names only, each name the path of the file the member stands for; no data is stored, so each
   * member's {@link ArMember#dataOffset()} is -1.
   */
  public static Contents readThin(FileChannel channel) throws IOException, ArFormatException {
    return scan(channel, true);
  }

  private static Contents scan(FileChannel channel, boolean thin) throws IOException, ArFormatException {
    long size = channel.size();
    checkMagic(channel, size, thin);
    List<ArMember> members = new ArrayList<>();
    List<IndexEntry> index = null;
    byte[] longNames = null;
    long at = MAGIC.length;
    FileWindow headers = new FileWindow(channel, size);
    while (at < size) {
      if (at + HEADER_SIZE > size) {
        throw new ArFormatException("truncated: member header at offset " + at + " runs past the end of the file");
      }
      ByteBuffer header = headers.read(at, HEADER_SIZE);
      if (header.get(58) != '`' || header.get(59) != '\n') {
        throw new ArFormatException("damaged member header at offset " + at + " (bad terminator)");
      }
      long memberSize = size(header, at);
      long data = at + HEADER_SIZE;
      String shortName = shortName(header);
      if (shortName != null) {
        // The common case, a name of up to 15 characters and its '/': a member of a GNU archive.
        if (!thin) {
          if (data + memberSize > size) {
            throw new ArFormatException("truncated: member at offset " + at + " declares " + memberSize
                + " bytes but the file ends after " + (size - data));
          }
          members.add(new ArMember(shortName, at, data, memberSize));
          at = data + memberSize + (memberSize & 1);
        } else {
          members.add(new ArMember(shortName, at, -1, memberSize));
          at = data;
        }
        continue;
      }
      String rawName = ascii(header, 0, 16).stripTrailing();
      boolean special = rawName.equals("/") || rawName.equals("/SYM64/") || rawName.equals("//");
      if (thin && !special) {
        // A thin member is its header alone; the size is that of the file it names.
        members.add(new ArMember(memberName(rawName, longNames, at), at, -1, memberSize));
        at = data;
        continue;
      }
      if (data + memberSize > size) {
        throw new ArFormatException("truncated: member at offset " + at + " declares " + memberSize
            + " bytes but the file ends after " + (size - data));
      }
      if (rawName.equals("/") || rawName.equals("/SYM64/")) {
        index = readIndex(channel, data, memberSize, rawName.equals("/SYM64/") ? 8 : 4);
      } else if (rawName.equals("//")) {
        ByteBuffer names = readFully(channel, data, (int) memberSize, size, "long name table");
        longNames = new byte[(int) memberSize];
        names.get(longNames);
      } else if (rawName.startsWith("#1/")) {
        int nameLength = (int) decimal(rawName.substring(3), at);
        if (nameLength > memberSize) {
          throw new ArFormatException("damaged member header at offset " + at + " (BSD name longer than the member)");
        }
        ByteBuffer name = readFully(channel, data, nameLength, size, "BSD member name");
        // llvm-ar pads BSD names with NULs.
        String bsdName = StandardCharsets.UTF_8.decode(name).toString().replace("\0", "");
        if (!bsdName.startsWith("__.SYMDEF")) { // a BSD index: not needed on Linux, where ar writes the GNU one
          members.add(new ArMember(bsdName, at, data + nameLength, memberSize - nameLength));
        }
      } else {
        members.add(new ArMember(memberName(rawName, longNames, at), at, data, memberSize));
      }
      at = data + memberSize + (memberSize & 1);
    }
    return new Contents(List.copyOf(members), index == null ? null : List.copyOf(index), size);
  }

  private static String memberName(String rawName, byte[] longNames, long at) throws ArFormatException {
    if (rawName.startsWith("/") && rawName.length() > 1 && Character.isDigit(rawName.charAt(1))) {
      if (longNames == null) {
        throw new ArFormatException("member at offset " + at + " refers to a long name table that is missing");
      }
      int start = (int) decimal(rawName.substring(1), at);
      int end = start;
      while (end < longNames.length && longNames[end] != '\n') {
        end++;
      }
      if (start >= longNames.length || end == start) {
        throw new ArFormatException("member at offset " + at + " refers outside the long name table");
      }
      String name = new String(longNames, start, end - start, StandardCharsets.UTF_8);
      return name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
    }
    return rawName.endsWith("/") ? rawName.substring(0, rawName.length() - 1) : rawName;
  }

  private static List<IndexEntry> readIndex(FileChannel channel, long data, long size, int width)
      throws IOException, ArFormatException {
    if (size > Integer.MAX_VALUE) {
      throw new ArFormatException("symbol index larger than 2 GiB");
    }
    ByteBuffer table = readFully(channel, data, (int) size, data + size, "symbol index");
    if (size < width) {
      throw new ArFormatException("symbol index too short");
    }
    long count = width == 8 ? table.getLong() : Integer.toUnsignedLong(table.getInt());
    // Signed 64-bit counts can be negative, and count * width can overflow: compare by division.
    if (count < 0 || count > (size - width) / width) {
      throw new ArFormatException("symbol index claims " + count + " entries but is only " + size + " bytes");
    }
    long[] offsets = new long[(int) count];
    for (int i = 0; i < count; i++) {
      offsets[i] = width == 8 ? table.getLong() : Integer.toUnsignedLong(table.getInt());
    }
    List<IndexEntry> entries = new ArrayList<>((int) count);
    byte[] rest = new byte[table.remaining()];
    table.get(rest);
    int p = 0;
    for (int i = 0; i < count; i++) {
      int end = p;
      while (end < rest.length && rest[end] != 0) {
        end++;
      }
      if (end >= rest.length) {
        throw new ArFormatException("symbol index names run past its end");
      }
      entries.add(new IndexEntry(new String(rest, p, end - p, StandardCharsets.UTF_8), offsets[i]));
      p = end + 1;
    }
    return entries;
  }

  /**
   * Where each member's header is in an archive that holds members of {@code sizes}, in order,
   * under short names, with neither an index nor a long-name table: what {@code ar qcS} writes of
   * such members. One more entry than {@code sizes}: where that archive ends.
   */
  public static long[] plainHeaderOffsets(long[] sizes) {
    long[] offsets = new long[sizes.length + 1];
    long at = MAGIC.length;
    for (int i = 0; i < sizes.length; i++) {
      offsets[i] = at;
      at += HEADER_SIZE + sizes[i] + (sizes[i] & 1);
    }
    offsets[sizes.length] = at;
    return offsets;
  }

  /**
   * Whether {@code ar} stores {@code name} in the header itself (GNU format): 1 to 15 printable
   * ASCII characters, none of them '/' or a space.
   */
  public static boolean isShortName(String name) {
    if (name.isEmpty() || name.length() > 15) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c >= 0x7f || c == '/') {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the 60 bytes at {@code at} are the header of a member stored under the short name
   * {@code name} (ASCII, up to 15 characters) at {@code size} bytes: the name, '/' and spaces, the
   * size in decimal and spaces, and the terminator. Date, owner, group and mode are not looked at.
   * Compared in place: tens of thousands of members are checked this way.
   */
  static boolean isShortMemberHeader(ByteBuffer buffer, int at, String name, long size) {
    if (name.length() > 15 || buffer.get(at + 58) != '`' || buffer.get(at + 59) != '\n') {
      return false;
    }
    for (int i = 0; i < 16; i++) {
      char expected = i < name.length() ? name.charAt(i) : i == name.length() ? '/' : ' ';
      if (buffer.get(at + i) != expected) {
        return false;
      }
    }
    int digits = 1;
    for (long rest = size / 10; rest > 0; rest /= 10) {
      digits++;
    }
    if (size < 0 || digits > 10) {
      return false;
    }
    long rest = size;
    for (int i = digits - 1; i >= 0; i--, rest /= 10) {
      if (buffer.get(at + 48 + i) != '0' + rest % 10) {
        return false;
      }
    }
    for (int i = 48 + digits; i < 58; i++) {
      if (buffer.get(at + i) != ' ') {
        return false;
      }
    }
    return true;
  }

  /** Groups the index by member header offset. */
  public static Map<Long, List<String>> symbolsByMember(List<IndexEntry> index) {
    Map<Long, List<String>> byMember = new HashMap<>();
    for (IndexEntry entry : index) {
      byMember.computeIfAbsent(entry.memberOffset(), k -> new ArrayList<>()).add(entry.symbol());
    }
    return byMember;
  }

  static ByteBuffer readFully(FileChannel channel, long position, int length, long fileSize, String what)
      throws IOException, ArFormatException {
    if (position + length > fileSize) {
      throw new ArFormatException("truncated: " + what + " at offset " + position + " runs past the end of the file");
    }
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new ArFormatException("truncated: " + what + " at offset " + position);
      }
    }
    return buffer.flip();
  }

  /**
   * A member's bytes without copying them: mapped from the file, so parsing an object's symbol
   * table touches only those pages and hashing streams from the page cache.
   */
  public static ByteBuffer map(FileChannel channel, ArMember member) throws IOException, ArFormatException {
    if (member.dataOffset() + member.size() > channel.size()) {
      throw new ArFormatException("truncated: member '" + member.name() + "' runs past the end of the file");
    }
    if (member.size() > Integer.MAX_VALUE) {
      throw new ArFormatException("member '" + member.name() + "' is larger than 2 GiB");
    }
    return channel.map(FileChannel.MapMode.READ_ONLY, member.dataOffset(), member.size());
  }

  private static String ascii(ByteBuffer header, int from, int length) {
    byte[] raw = new byte[length];
    header.get(from, raw);
    return new String(raw, StandardCharsets.UTF_8);
  }

  /**
   * The member's name when its field holds a short GNU name: 1 to 15 plain characters (no '/' or
   * space among them), the '/' that ends it, then spaces; {@code null} for anything else (the index,
   * the long-name table, a long or BSD name), which the general path reads. Read from the bytes:
   * every member of an archive of small objects comes this way, and the general path makes a few
   * strings of each header.
   */
  private static String shortName(ByteBuffer header) {
    int end = 0;
    while (end < 16 && header.get(end) != '/') {
      byte b = header.get(end);
      if (b <= ' ' || b >= 0x7f) {
        return null;
      }
      end++;
    }
    if (end == 0 || end == 16) {
      return null;
    }
    for (int i = end + 1; i < 16; i++) {
      if (header.get(i) != ' ') {
        return null;
      }
    }
    byte[] name = new byte[end];
    header.get(0, name);
    return new String(name, StandardCharsets.ISO_8859_1);
  }

  private static long size(ByteBuffer header, long at) throws ArFormatException {
    long value = sizeField(header, 0);
    if (value < 0) {
      throw new ArFormatException("damaged member header at offset " + at + " (bad number '"
          + ascii(header, 48, 10).trim() + "')");
    }
    return value;
  }

  /**
   * The size field (bytes 48-57) of the header at {@code at}: decimal digits, then spaces (leading
   * spaces are taken too); -1 when it holds anything else.
   */
  static long sizeField(ByteBuffer buffer, int at) {
    long value = 0;
    int i = 48;
    while (i < 58 && buffer.get(at + i) == ' ') {
      i++;
    }
    int digits = 0;
    for (; i < 58 && buffer.get(at + i) >= '0' && buffer.get(at + i) <= '9'; i++, digits++) {
      value = value * 10 + (buffer.get(at + i) - '0');
    }
    for (; i < 58; i++) {
      if (buffer.get(at + i) != ' ') {
        return -1;
      }
    }
    return digits == 0 ? -1 : value;
  }

  private static long decimal(String text, long at) throws ArFormatException {
    try {
      long value = Long.parseLong(text.trim());
      if (value < 0) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new ArFormatException("damaged member header at offset " + at + " (bad number '" + text + "')");
    }
  }
}
