package io.github.kernelarchive.audit;

import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArMember;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ElfSymbol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Which input defines which symbol, across the host objects and every archive member of a link,
 * named as the linker would: {@code a.cpp.o} or {@code libmha_fwd.a(hdim64.cu.o)}.
 */
final class SymbolDefiners {
  private SymbolDefiners() {}

  static Map<String, List<String>> of(List<Path> objects, List<Path> archives, Predicate<ElfSymbol> counted)
      throws IOException {
    Map<String, List<String>> definers = new TreeMap<>();
    for (Path object : objects) {
      addObject(definers, object, counted);
    }
    for (Path archive : archives) {
      addArchive(definers, archive, counted);
    }
    return definers;
  }

  /** Adds what {@code object} defines among the {@code counted} symbols, under its file name. */
  static void addObject(Map<String, List<String>> definers, Path object, Predicate<ElfSymbol> counted)
      throws IOException {
    collect(ByteBuffer.wrap(Files.readAllBytes(object)), object.getFileName().toString(), counted, definers);
  }

  /** Adds what each member of {@code archive} defines among the {@code counted} symbols, as {@code lib.a(m.o)}. */
  static void addArchive(Map<String, List<String>> definers, Path archive, Predicate<ElfSymbol> counted)
      throws IOException {
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
      for (ArMember member : ArReader.read(channel).members()) {
        collect(ArReader.map(channel, member), where(archive, member.name()), counted, definers);
      }
    } catch (ArFormatException e) {
      throw new IOException(archive + ": " + e.getMessage(), e);
    }
  }

  /**
   * Every global symbol each archive defines, as its index lists it (hidden ones included), under
   * {@code lib.a(m.o)}: only the index and the member headers are read, never a member's content.
   */
  static Map<String, List<String>> fromIndexes(List<Path> archives) throws IOException {
    Map<String, List<String>> definers = new HashMap<>();
    for (Path archive : archives) {
      try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
        ArReader.Contents contents = ArReader.read(channel);
        Map<Long, String> names = new HashMap<>();
        contents.members().forEach(m -> names.put(m.headerOffset(), m.name()));
        for (ArReader.IndexEntry entry : contents.index()) {
          definers.computeIfAbsent(entry.symbol(), k -> new ArrayList<>())
              .add(where(archive, names.getOrDefault(entry.memberOffset(), "?")));
        }
      } catch (ArFormatException e) {
        throw new IOException(archive + ": " + e.getMessage(), e);
      }
    }
    return definers;
  }

  /** How a member is named in reports, as the linker names it. */
  static String where(Path archive, String member) {
    return archive.getFileName() + "(" + member + ")";
  }

  private static void collect(ByteBuffer bytes, String where, Predicate<ElfSymbol> counted,
      Map<String, List<String>> definers) throws IOException {
    visit(bytes, where, symbol -> {
      if (counted.test(symbol)) {
        definers.computeIfAbsent(symbol.name(), k -> new ArrayList<>()).add(where);
      }
    });
  }

  /**
   * The ELF symbol type ({@code STT_FUNC}, {@code STT_OBJECT}, ...) of each of {@code names} as
   * some object or member defines it; archives that no longer exist are passed over.
   */
  static Map<String, Integer> types(List<Path> objects, List<Path> archives, Set<String> names) throws IOException {
    Map<String, Integer> types = new HashMap<>();
    Consumer<ElfSymbol> record = symbol -> {
      if (names.contains(symbol.name())) {
        types.putIfAbsent(symbol.name(), symbol.type());
      }
    };
    for (Path object : objects) {
      visit(ByteBuffer.wrap(Files.readAllBytes(object)), object.getFileName().toString(), record);
    }
    for (Path archive : archives) {
      if (!Files.isRegularFile(archive)) {
        continue;
      }
      try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
        for (ArMember member : ArReader.read(channel).members()) {
          visit(ArReader.map(channel, member), where(archive, member.name()), record);
        }
      } catch (ArFormatException e) {
        throw new IOException(archive + ": " + e.getMessage(), e);
      }
    }
    return types;
  }

  /**
   * Those of {@code names} that some host object or archive member refers to (an undefined
   * reference), read until every name is found: a function that nothing calls.
   */
  static Set<String> referenced(List<Path> objects, List<Path> archives, Set<String> names) throws IOException {
    Set<String> found = new HashSet<>();
    for (Path object : objects) {
      references(ByteBuffer.wrap(Files.readAllBytes(object)), object.getFileName().toString(), names, found);
    }
    for (Path archive : archives) {
      try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
        for (ArMember member : ArReader.read(channel).members()) {
          if (found.size() == names.size()) {
            return found;
          }
          references(ArReader.map(channel, member), where(archive, member.name()), names, found);
        }
      } catch (ArFormatException e) {
        throw new IOException(archive + ": " + e.getMessage(), e);
      }
    }
    return found;
  }

  private static void references(ByteBuffer bytes, String where, Set<String> names, Set<String> found)
      throws IOException {
    try {
      for (ElfSymbol symbol : ElfObject.parse(bytes).symbols()) {
        if (!symbol.isDefined() && names.contains(symbol.name())) {
          found.add(symbol.name());
        }
      }
    } catch (ElfFormatException e) {
      throw new IOException(where + " is not a valid object: " + e.getMessage(), e);
    }
  }

  /** Each symbol the object in {@code bytes} defines (file symbols left out). */
  private static void visit(ByteBuffer bytes, String where, Consumer<ElfSymbol> action) throws IOException {
    try {
      for (ElfSymbol symbol : ElfObject.parse(bytes).symbols()) {
        if (symbol.isDefined() && symbol.type() != ElfSymbol.TYPE_FILE) {
          action.accept(symbol);
        }
      }
    } catch (ElfFormatException e) {
      throw new IOException(where + " is not a valid object: " + e.getMessage(), e);
    }
  }
}
