package io.github.kernelarchive.audit;

import io.github.kernelarchive.archive.MemberSymbols;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfSymbol;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds strong symbols defined more than once among the objects and archive members that go into
 * one library, before the linker runs: the linker stops at the first "multiple definition", this
 * reports every one with both definers. The classic case is a header that defines a variable
 * ({@code int state_d;} rather than {@code extern int state_d;}) and is included by host code of
 * several sources, as NVSHMEM's device-state header once was.
 */
public final class DuplicateDefinitions {
  private DuplicateDefinitions() {}

  /** Fails, listing every duplicate, when a strong global symbol has more than one definer. */
  public static void check(List<Path> objects, List<Path> archives) throws IOException, BuildFailureException {
    check(objects, archives, Map.of());
  }

  /**
   * As {@link #check(List, List)}; an archive in {@code known} is not read again: its members'
   * strong definitions were found when it was built.
   */
  public static void check(List<Path> objects, List<Path> archives, Map<Path, List<MemberSymbols>> known)
      throws IOException, BuildFailureException {
    // Weak and unique (inline, template, COMDAT) definitions merge; common symbols do not define.
    // Hashed, not sorted: tens of thousands of symbols go in, and only duplicates are reported (sorted).
    Map<String, List<String>> definers = new HashMap<>();
    for (Path object : objects) {
      SymbolDefiners.addObject(definers, object, ElfSymbol::definesStrongly);
    }
    for (Path archive : archives) {
      List<MemberSymbols> members = known.get(archive);
      if (members == null) {
        SymbolDefiners.addArchive(definers, archive, ElfSymbol::definesStrongly);
        continue;
      }
      for (MemberSymbols member : members) {
        String where = SymbolDefiners.where(archive, member.member());
        member.strongDefinitions().forEach(s -> definers.computeIfAbsent(s, k -> new ArrayList<>()).add(where));
      }
    }
    Map<String, List<String>> duplicates = new TreeMap<>();
    definers.forEach((symbol, where) -> {
      if (where.size() > 1) {
        duplicates.put(symbol, where);
      }
    });
    if (!duplicates.isEmpty()) {
      throw new BuildFailureException(message(duplicates));
    }
  }

  private static String message(Map<String, List<String>> duplicates) {
    StringBuilder text = new StringBuilder(duplicates.size() + " symbol(s) defined more than once; the link would fail:");
    duplicates.forEach((symbol, where) -> text.append("\n  ").append(symbol).append(" defined in ")
        .append(String.join(" and ", where)));
    text.append("\nIf a header defines a variable, declare it there as 'extern' and define it in one source;"
        + " if only device code needs it, guard the host-side definition with '#ifdef __CUDACC__'"
        + " (or make it 'static' or C++17 'inline'). Otherwise rename one of the definitions.");
    return text.toString();
  }
}
