package io.github.kernelarchive.audit;

import io.github.kernelarchive.archive.ArFormatException;
import io.github.kernelarchive.archive.ArMember;
import io.github.kernelarchive.archive.ArReader;
import io.github.kernelarchive.archive.MemberSymbols;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Which input defines which symbol, across the host objects and every archive member of a link,
 * named as the linker would: {@code a.cpp.o} or {@code libmha_fwd.a(hdim64.cu.o)}.
 */
final class SymbolDefiners {
  private SymbolDefiners() {}

  static Map<String, List<String>> of(List<Path> objects, List<Path> archives, Predicate<ElfSymbol> counted)
      throws IOException {
    return of(objects, archives, Map.of(), counted);
  }

  /**
   * @param known for archives whose members' counted symbols are already known (built in this
   *     run), those symbols, in member order: such an archive is not read
   */
  static Map<String, List<String>> of(List<Path> objects, List<Path> archives, Map<Path, List<MemberSymbols>> known,
      Predicate<ElfSymbol> counted) throws IOException {
    Map<String, List<String>> definers = new TreeMap<>();
    for (Path object : objects) {
      collect(ByteBuffer.wrap(Files.readAllBytes(object)), object.getFileName().toString(), counted, definers);
    }
    for (Path archive : archives) {
      List<MemberSymbols> members = known.get(archive);
      if (members != null) {
        for (MemberSymbols member : members) {
          String where = archive.getFileName() + "(" + member.member() + ")";
          member.strongDefinitions().forEach(symbol -> definers.computeIfAbsent(symbol, k -> new ArrayList<>()).add(where));
        }
        continue;
      }
      try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
        for (ArMember member : ArReader.read(channel).members()) {
          collect(ArReader.map(channel, member), archive.getFileName() + "(" + member.name() + ")", counted, definers);
        }
      } catch (ArFormatException e) {
        throw new IOException(archive + ": " + e.getMessage(), e);
      }
    }
    return definers;
  }

  private static void collect(ByteBuffer bytes, String where, Predicate<ElfSymbol> counted,
      Map<String, List<String>> definers) throws IOException {
    try {
      for (ElfSymbol symbol : ElfObject.parse(bytes).symbols()) {
        if (symbol.isDefined() && symbol.type() != ElfSymbol.TYPE_FILE && counted.test(symbol)) {
          definers.computeIfAbsent(symbol.name(), k -> new ArrayList<>()).add(where);
        }
      }
    } catch (ElfFormatException e) {
      throw new IOException(where + " is not a valid object: " + e.getMessage(), e);
    }
  }
}
