package io.github.kernelarchive.elf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The parts of an ELF file the build checks: class, type, machine, and the symbols that link
 * against other files (global, weak and unique ones, defined or not). Local symbols (section and
 * file symbols, statics, compiler labels: often most of a kernel object's table) are passed over
 * without decoding their names, since no check needs them. Reads 64-bit objects of either byte
 * order; anything else is rejected with a reason.
 */
public final class ElfObject {
  public static final int ET_REL = 1;
  public static final int EM_X86_64 = 62;
  public static final int EM_AARCH64 = 183;
  public static final int EM_PPC64 = 21;
  private static final int SHT_SYMTAB = 2;
  private static final int SHT_DYNAMIC = 6;
  private static final int SHT_DYNSYM = 11;
  private static final int SHT_NOTE = 7;
  private static final int SHT_GNU_VERDEF = 0x6ffffffd;
  private static final int SHT_GNU_VERNEED = 0x6ffffffe;
  private static final int SHT_GNU_VERSYM = 0x6fffffff;
  private static final int VERSYM_HIDDEN = 0x8000;
  private static final int NT_GNU_BUILD_ID = 3;
  public static final long DT_NEEDED = 1;
  public static final long DT_SONAME = 14;
  public static final long DT_RPATH = 15;
  public static final long DT_RUNPATH = 29;
  /** Packed relative relocations: glibc's loader reads them from 2.36 on, and only with GLIBC_ABI_DT_RELR needed. */
  public static final long DT_RELR = 36;
  private static final Map<Integer, String> MACHINE_NAMES = Map.of(
      EM_X86_64, "x86-64", EM_AARCH64, "aarch64", EM_PPC64, "ppc64", 3, "i386", 40, "arm", 243, "riscv");

  /** An entry of a shared library's dynamic section whose value is a string (NEEDED, SONAME, RPATH, RUNPATH). */
  public record DynamicEntry(long tag, String value) {}

  /**
   * A symbol version a linked file requires of another ({@code .gnu.version_r}), as
   * {@code readelf -V} lists it: {@code libc.so.6} needs {@code GLIBC_2.34}, for the symbols
   * {@code dlopen} and {@code pthread_create}.
   *
   * @param symbols the imports bound to this version, in {@code .dynsym} order
   */
  public record VersionNeed(String library, String version, List<String> symbols) {}

  private final int type;
  private final int machine;
  private final List<ElfSymbol> symbols;
  private final List<ElfSymbol> dynamicSymbols;
  private final List<DynamicEntry> dynamicEntries;
  private final List<VersionNeed> versionNeeds;
  private final Set<Long> dynamicTags;

  private ElfObject(int type, int machine, List<ElfSymbol> symbols, List<ElfSymbol> dynamicSymbols,
      List<DynamicEntry> dynamicEntries, List<VersionNeed> versionNeeds, Set<Long> dynamicTags) {
    this.type = type;
    this.machine = machine;
    this.symbols = symbols;
    this.dynamicSymbols = dynamicSymbols;
    this.dynamicEntries = dynamicEntries;
    this.versionNeeds = versionNeeds;
    this.dynamicTags = dynamicTags;
  }

  /** Whether the dynamic section has an entry with {@code tag}, whatever its value ({@link #DT_RELR}, say). */
  public boolean hasDynamicTag(long tag) {
    return dynamicTags.contains(tag);
  }

  /** The versions this linked file requires of the libraries it needs, in file order; empty for objects. */
  public List<VersionNeed> versionNeeds() {
    return versionNeeds;
  }

  /** The dynamic symbol table of a shared library: what it exports and imports (locals left out). */
  public List<ElfSymbol> dynamicSymbols() {
    return dynamicSymbols;
  }

  public List<DynamicEntry> dynamicEntries() {
    return dynamicEntries;
  }

  public int type() {
    return type;
  }

  public int machine() {
    return machine;
  }

  /** The symbol table's global, weak and unique symbols, in table order (locals are left out). */
  public List<ElfSymbol> symbols() {
    return symbols;
  }

  /** Symbols this object defines for others to link against: what an archive index must list. */
  public List<String> definedExternalSymbols() {
    List<String> names = new ArrayList<>();
    for (ElfSymbol symbol : symbols) {
      if (symbol.isExternal() && symbol.isDefined() && symbol.type() != ElfSymbol.TYPE_FILE) {
        names.add(symbol.name());
      }
    }
    return names;
  }

  /** Names of the symbols it defines strongly ({@link ElfSymbol#definesStrongly}), in table order. */
  public List<String> strongDefinitions() {
    List<String> names = new ArrayList<>();
    for (ElfSymbol symbol : symbols) {
      if (symbol.definesStrongly()) {
        names.add(symbol.name());
      }
    }
    return names;
  }

  public static String machineName(int machine) {
    return MACHINE_NAMES.getOrDefault(machine, "machine " + machine);
  }

  /** The ELF machine of the JVM's own platform, which objects linked into it must match. */
  public static int hostMachine() {
    return switch (System.getProperty("os.arch")) {
      case "amd64", "x86_64" -> EM_X86_64;
      case "aarch64", "arm64" -> EM_AARCH64;
      case "ppc64le", "ppc64" -> EM_PPC64;
      default -> -1;
    };
  }

  public static boolean looksLikeElf(ByteBuffer data) {
    return data.remaining() >= 4 && data.get(data.position()) == 0x7f && data.get(data.position() + 1) == 'E'
        && data.get(data.position() + 2) == 'L' && data.get(data.position() + 3) == 'F';
  }

  /**
   * Maps {@code file} (a library can be hundreds of megabytes: never copied onto the heap) and
   * parses it; a file that is no ELF fails naming it.
   */
  public static ElfObject read(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return parse(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()));
    } catch (ElfFormatException e) {
      throw new IOException(file + " is not a valid ELF file: " + e.getMessage(), e);
    }
  }

  /** Parses the object in {@code data} (position to limit). */
  public static ElfObject parse(ByteBuffer data) throws ElfFormatException {
    ByteBuffer elf = header(data);
    int type = Short.toUnsignedInt(elf.getShort(16));
    int machine = Short.toUnsignedInt(elf.getShort(18));
    long sectionHeaders = elf.getLong(40);
    int entrySize = Short.toUnsignedInt(elf.getShort(58));
    int count = sectionCount(elf);
    if (type == ET_REL) {
      ElfObject object = relocatable(elf, machine, sectionHeaders, entrySize, count);
      if (object != null) {
        return object;
      }
    }
    List<ElfSymbol> symbols = new ArrayList<>();
    List<ElfSymbol> dynamicSymbols = new ArrayList<>();
    List<DynamicEntry> dynamicEntries = new ArrayList<>();
    Set<Long> dynamicTags = new HashSet<>();
    Map<Integer, NeedBuilder> needs = versionNeeds(elf, sectionHeaders, entrySize, count);
    for (int i = 0; i < count; i++) {
      int header = (int) (sectionHeaders + (long) i * entrySize);
      int sectionType = elf.getInt(header + 4);
      if (sectionType != SHT_SYMTAB && sectionType != SHT_DYNSYM && sectionType != SHT_DYNAMIC) {
        continue;
      }
      Section strings = linkedStrings(elf, header, sectionHeaders, entrySize, count);
      if (sectionType == SHT_DYNAMIC) {
        Section table = section(elf, header);
        for (long at = table.offset; at + 16 <= table.offset + table.size; at += 16) {
          long tag = elf.getLong((int) at);
          dynamicTags.add(tag);
          if (tag == DT_NEEDED || tag == DT_SONAME || tag == DT_RPATH || tag == DT_RUNPATH) {
            dynamicEntries.add(new DynamicEntry(tag, string(elf, strings, elf.getLong((int) at + 8))));
          }
        }
        continue;
      }
      List<String> versions = sectionType == SHT_DYNSYM ? symbolVersions(elf, sectionHeaders, entrySize, count) : List.of();
      int[] versionIndexes = sectionType == SHT_DYNSYM && !needs.isEmpty()
          ? versionIndexes(elf, sectionHeaders, entrySize, count) : new int[0];
      readSymbols(elf, header, strings, versions, versionIndexes, needs,
          sectionType == SHT_SYMTAB ? symbols : dynamicSymbols);
    }
    // No stream here: every archived object is parsed, and nearly all have no version needs.
    List<VersionNeed> versionNeeds = new ArrayList<>(needs.size());
    for (NeedBuilder need : needs.values()) {
      versionNeeds.add(new VersionNeed(need.library, need.version, List.copyOf(need.symbols)));
    }
    return new ElfObject(type, machine, List.copyOf(symbols), List.copyOf(dynamicSymbols), List.copyOf(dynamicEntries),
        List.copyOf(versionNeeds), Set.copyOf(dynamicTags));
  }

  /**
   * A relocatable object read the short way: its symbol table alone, since an object has no
   * dynamic section, dynamic symbols or version requirements; {@code null} when this one has any of
   * them after all (the full parse then reads it). Apart because every archived object comes this
   * way: the JIT compiles this small method far sooner than the full parse, which was the largest
   * compilation of a build of 50,000 objects.
   */
  private static ElfObject relocatable(ByteBuffer elf, int machine, long sectionHeaders, int entrySize, int count)
      throws ElfFormatException {
    List<ElfSymbol> symbols = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int header = (int) (sectionHeaders + (long) i * entrySize);
      int sectionType = elf.getInt(header + 4);
      if (sectionType == SHT_DYNSYM || sectionType == SHT_DYNAMIC || sectionType == SHT_GNU_VERNEED) {
        return null;
      }
      if (sectionType == SHT_SYMTAB) {
        readSymbols(elf, header, linkedStrings(elf, header, sectionHeaders, entrySize, count), List.of(), new int[0],
            Map.of(), symbols);
      }
    }
    return new ElfObject(ET_REL, machine, List.copyOf(symbols), List.of(), List.of(), List.of(), Set.of());
  }

  /** The string table the section at {@code header} links to. */
  private static Section linkedStrings(ByteBuffer elf, int header, long sectionHeaders, int entrySize, int count)
      throws ElfFormatException {
    int linked = elf.getInt(header + 40);
    if (linked <= 0 || linked >= count) {
      throw new ElfFormatException("a symbol table or dynamic section links to a missing string table");
    }
    return section(elf, (int) (sectionHeaders + (long) linked * entrySize));
  }

  /**
   * Adds the symbol table at {@code header}'s global, weak and unique symbols to {@code target},
   * each with its version from {@code versions} (by index; empty past its end), and each undefined
   * one to the {@code needs} its {@code versionIndexes} entry names.
   */
  private static void readSymbols(ByteBuffer elf, int header, Section strings, List<String> versions,
      int[] versionIndexes, Map<Integer, NeedBuilder> needs, List<ElfSymbol> target) throws ElfFormatException {
    Section table = section(elf, header);
    long symbolSize = elf.getLong(header + 56);
    if (symbolSize == 0) {
      symbolSize = 24;
    } else if (symbolSize != 24) {
      throw new ElfFormatException("symbol table entries of " + symbolSize + " bytes; ELF64 symbols are 24");
    }
    for (long at = table.offset; at + 24 <= table.offset + table.size; at += symbolSize) {
      int p = (int) at;
      int info = Byte.toUnsignedInt(elf.get(p + 4));
      if (info >> 4 == ElfSymbol.LOCAL) {
        continue;
      }
      int index = (int) ((at - table.offset) / symbolSize);
      ElfSymbol symbol = new ElfSymbol(string(elf, strings, Integer.toUnsignedLong(elf.getInt(p))), info >> 4,
          info & 0xf, Short.toUnsignedInt(elf.getShort(p + 6)), elf.get(p + 5) & 0x3,
          index < versions.size() ? versions.get(index) : "");
      target.add(symbol);
      NeedBuilder need = index < versionIndexes.length ? needs.get(versionIndexes[index]) : null;
      if (need != null && !symbol.isDefined()) {
        need.symbols.add(symbol.name());
      }
    }
  }

  /** A {@link VersionNeed} while its symbols are collected. */
  private static final class NeedBuilder {
    final String library;
    final String version;
    final List<String> symbols = new ArrayList<>();

    NeedBuilder(String library, String version) {
      this.library = library;
      this.version = version;
    }
  }

  /**
   * The required versions of {@code .gnu.version_r}, by the index {@code .gnu.version} gives the
   * symbols bound to them, in file order. Verneed: version, aux count (2 bytes each), file name,
   * aux offset, next offset (4 each); each Vernaux: hash (4), flags, other (2 each: other is the
   * index), name, next (4 each).
   */
  private static Map<Integer, NeedBuilder> versionNeeds(ByteBuffer elf, long sectionHeaders, int entrySize, int count)
      throws ElfFormatException {
    Map<Integer, NeedBuilder> needs = Map.of(); // a map of its own only for a file that has requirements
    for (int i = 0; i < count; i++) {
      int header = (int) (sectionHeaders + (long) i * entrySize);
      if (elf.getInt(header + 4) != SHT_GNU_VERNEED) {
        continue;
      }
      if (needs.isEmpty()) {
        needs = new LinkedHashMap<>();
      }
      int linked = elf.getInt(header + 40);
      if (linked <= 0 || linked >= count) {
        throw new ElfFormatException("the version requirements link to a missing string table");
      }
      Section strings = section(elf, (int) (sectionHeaders + (long) linked * entrySize));
      Section section = section(elf, header);
      long end = section.offset + section.size;
      long at = section.offset;
      for (int n = 0; n < elf.getInt(header + 44) && n < 65536; n++) {
        if (at < section.offset || at + 16 > end) {
          throw new ElfFormatException("a version requirement lies outside its section");
        }
        String library = string(elf, strings, Integer.toUnsignedLong(elf.getInt((int) at + 4)));
        int auxCount = Short.toUnsignedInt(elf.getShort((int) at + 2));
        long aux = at + Integer.toUnsignedLong(elf.getInt((int) at + 8));
        for (int a = 0; a < auxCount; a++) {
          if (aux < section.offset || aux + 16 > end) {
            throw new ElfFormatException("a required version lies outside its section");
          }
          int index = Short.toUnsignedInt(elf.getShort((int) aux + 6)) & ~VERSYM_HIDDEN;
          needs.put(index, new NeedBuilder(library,
              string(elf, strings, Integer.toUnsignedLong(elf.getInt((int) aux + 8)))));
          long next = Integer.toUnsignedLong(elf.getInt((int) aux + 12));
          if (next == 0) {
            break;
          }
          aux += next;
        }
        long next = Integer.toUnsignedLong(elf.getInt((int) at + 12));
        if (next == 0) {
          break;
        }
        at += next;
      }
    }
    return needs;
  }

  /** {@code .gnu.version}: each dynamic symbol's version index (hidden bit cleared); empty without one. */
  private static int[] versionIndexes(ByteBuffer elf, long sectionHeaders, int entrySize, int count)
      throws ElfFormatException {
    for (int i = 0; i < count; i++) {
      int header = (int) (sectionHeaders + (long) i * entrySize);
      if (elf.getInt(header + 4) == SHT_GNU_VERSYM) {
        Section versym = section(elf, header);
        int[] indexes = new int[(int) (versym.size / 2)];
        for (int n = 0; n < indexes.length; n++) {
          indexes[n] = Short.toUnsignedInt(elf.getShort((int) (versym.offset + 2L * n))) & ~VERSYM_HIDDEN;
        }
        return indexes;
      }
    }
    return new int[0];
  }

  /**
   * The version of each dynamic symbol, by its index in {@code .dynsym}, as {@code nm -D} appends
   * it ({@code @@NODE}, {@code @NODE} for a hidden one, empty when unversioned): {@code .gnu.version}
   * holds an index per symbol, {@code .gnu.version_d} the nodes this file defines. Indexes that
   * name no definition (an import's required version, from {@code .gnu.version_r}) read as empty:
   * the checks look at what a library exports. Empty when the file has no version sections.
   */
  private static List<String> symbolVersions(ByteBuffer elf, long sectionHeaders, int entrySize, int count)
      throws ElfFormatException {
    Section versym = null;
    Map<Integer, String> nodes = new HashMap<>();
    for (int i = 0; i < count; i++) {
      int header = (int) (sectionHeaders + (long) i * entrySize);
      int type = elf.getInt(header + 4);
      if (type == SHT_GNU_VERSYM) {
        versym = section(elf, header);
      } else if (type == SHT_GNU_VERDEF) {
        int linked = elf.getInt(header + 40);
        if (linked <= 0 || linked >= count) {
          throw new ElfFormatException("the version definitions link to a missing string table");
        }
        Section strings = section(elf, (int) (sectionHeaders + (long) linked * entrySize));
        Section definitions = section(elf, header);
        // Verdef: version, flags, index, aux count (2 bytes each), hash, aux offset, next offset
        // (4 each); its first Verdaux (name, next) holds the node's name.
        long at = definitions.offset;
        for (int n = 0; n < elf.getInt(header + 44) && n < 65536; n++) {
          if (at < definitions.offset || at + 20 > definitions.offset + definitions.size) {
            throw new ElfFormatException("a version definition lies outside its section");
          }
          int index = Short.toUnsignedInt(elf.getShort((int) at + 4));
          long aux = at + Integer.toUnsignedLong(elf.getInt((int) at + 12));
          if (aux + 8 > definitions.offset + definitions.size) {
            throw new ElfFormatException("a version definition's name lies outside its section");
          }
          nodes.put(index, string(elf, strings, Integer.toUnsignedLong(elf.getInt((int) aux))));
          long next = Integer.toUnsignedLong(elf.getInt((int) at + 16));
          if (next == 0) {
            break;
          }
          at += next;
        }
      }
    }
    if (versym == null) {
      return List.of();
    }
    List<String> versions = new ArrayList<>();
    for (long at = versym.offset; at + 2 <= versym.offset + versym.size; at += 2) {
      int value = Short.toUnsignedInt(elf.getShort((int) at));
      int index = value & ~VERSYM_HIDDEN;
      // 0 and 1 are "local" and "global, unversioned"; 1 is also the base definition (the file's own name).
      String node = index > 1 ? nodes.get(index) : null;
      versions.add(node == null ? "" : ((value & VERSYM_HIDDEN) != 0 ? "@" : "@@") + node);
    }
    return versions;
  }

  /**
   * The GNU build ID of a linked file ({@code .note.gnu.build-id}), in hex; empty when it has none.
   * Apart from {@link #parse}, which reads thousands of objects per build and needs no notes.
   */
  public static Optional<String> buildId(ByteBuffer data) throws ElfFormatException {
    Optional<Field> field = buildIdField(data);
    if (field.isEmpty()) {
      return Optional.empty();
    }
    byte[] id = new byte[field.get().length()];
    data.slice().get((int) field.get().offset(), id);
    return Optional.of(HexFormat.of().formatHex(id));
  }

  /** {@code length} bytes at {@code offset} of the file. */
  public record Field(long offset, int length) {}

  /**
   * Where the build ID's bytes are in the file; empty when it has none. The link writes them in
   * place once it knows them.
   */
  public static Optional<Field> buildIdField(ByteBuffer data) throws ElfFormatException {
    ByteBuffer elf = header(data);
    long sectionHeaders = elf.getLong(40);
    int entrySize = Short.toUnsignedInt(elf.getShort(58));
    int count = sectionCount(elf);
    for (int i = 0; i < count; i++) {
      int header = (int) (sectionHeaders + (long) i * entrySize);
      if (elf.getInt(header + 4) != SHT_NOTE) {
        continue;
      }
      Section notes = section(elf, header);
      // Each note: name size, description size, type, then name and description, each padded to
      // the section's alignment: 4, or 8 where it says so (.note.gnu.property in 64-bit files).
      long pad = elf.getLong(header + 48) == 8 ? 7 : 3;
      for (long at = notes.offset; at + 12 <= notes.offset + notes.size; ) {
        long nameSize = Integer.toUnsignedLong(elf.getInt((int) at));
        long descriptionSize = Integer.toUnsignedLong(elf.getInt((int) at + 4));
        int type = elf.getInt((int) at + 8);
        long name = at + 12;
        long description = (name + nameSize + pad) & ~pad;
        long next = (description + descriptionSize + pad) & ~pad;
        // Only the padding of the last note may lie past the section (ld.bfd leaves it out).
        if (description + descriptionSize > notes.offset + notes.size) {
          throw new ElfFormatException("a note runs past the end of its section");
        }
        if (type == NT_GNU_BUILD_ID && nameSize == 4 && isGnu(elf, (int) name)) {
          return Optional.of(new Field(description, (int) descriptionSize));
        }
        at = next;
      }
    }
    return Optional.empty();
  }

  /** Whether the note name at {@code at} is "GNU" with its terminating zero. */
  private static boolean isGnu(ByteBuffer elf, int at) {
    return elf.get(at) == 'G' && elf.get(at + 1) == 'N' && elf.get(at + 2) == 'U' && elf.get(at + 3) == 0;
  }

  /** The file in {@code data} (position to limit), checked to be 64-bit ELF, in its byte order. */
  private static ByteBuffer header(ByteBuffer data) throws ElfFormatException {
    ByteBuffer elf = data.slice();
    if (!looksLikeElf(elf)) {
      throw new ElfFormatException("not an ELF file (no \\x7fELF magic)");
    }
    if (elf.limit() < 64) {
      throw new ElfFormatException("truncated ELF header");
    }
    if (elf.get(4) != 2) {
      throw new ElfFormatException("32-bit ELF; only 64-bit objects are supported");
    }
    return elf.order(elf.get(5) == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
  }

  /** How many section headers there are, checked to lie inside the file. */
  private static int sectionCount(ByteBuffer elf) throws ElfFormatException {
    long sectionHeaders = elf.getLong(40);
    int entrySize = Short.toUnsignedInt(elf.getShort(58));
    int count = Short.toUnsignedInt(elf.getShort(60));
    // Written so that no sum of file-controlled values can overflow.
    if (count > 0 && (entrySize < 64 || sectionHeaders < 0 || sectionHeaders > elf.limit() - (long) entrySize * count)) {
      throw new ElfFormatException("section header table lies outside the file (truncated or corrupt)");
    }
    return count;
  }

  private record Section(long offset, long size) {}

  private static Section section(ByteBuffer elf, int header) throws ElfFormatException {
    long offset = elf.getLong(header + 24);
    long size = elf.getLong(header + 32);
    if (offset < 0 || size < 0 || offset > elf.limit() || size > elf.limit() - offset) {
      throw new ElfFormatException("a section lies outside the file (truncated or corrupt)");
    }
    return new Section(offset, size);
  }

  private static String string(ByteBuffer elf, Section strings, long index) throws ElfFormatException {
    if (index < 0 || index >= strings.size) {
      throw new ElfFormatException("symbol name outside the string table");
    }
    int start = (int) (strings.offset + index);
    int end = start;
    int limit = (int) (strings.offset + strings.size);
    while (end < limit && elf.get(end) != 0) {
      end++;
    }
    byte[] bytes = new byte[end - start];
    elf.get(start, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
