package io.github.kernelarchive.audit;

import io.github.kernelarchive.archive.MemberSymbols;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.compile.DepfileParser;
import io.github.kernelarchive.elf.ElfSymbol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds strong symbols defined more than once among the objects and archive members that go into
 * one library, before the linker runs: the linker stops at the first "multiple definition", this
 * reports every one with both definers, C++ names demangled. The classic cases are a header that
 * defines a variable ({@code int state_d;} rather than {@code extern int state_d;}) and is included
 * by host code of several sources, as NVSHMEM's device-state header once was, and a header of
 * third-party kernel code that defines ordinary functions, meant for one translation unit and
 * included by two: then the report names the headers every definer read (from their depfiles).
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
    Definers definers = new Definers();
    for (Path object : objects) {
      Map<String, List<String>> found = new HashMap<>();
      SymbolDefiners.addObject(found, object, ElfSymbol::definesStrongly);
      definers.addAll(found);
    }
    for (Path archive : archives) {
      List<MemberSymbols> members = known.get(archive);
      if (members == null) {
        Map<String, List<String>> found = new HashMap<>();
        SymbolDefiners.addArchive(found, archive, ElfSymbol::definesStrongly);
        definers.addAll(found);
        continue;
      }
      String archiveName = archive.getFileName().toString();
      for (MemberSymbols member : members) {
        for (String symbol : member.strongDefinitions()) {
          definers.add(symbol, new Member(archiveName, member.member()));
        }
      }
    }
    Map<String, List<String>> duplicates = definers.duplicates();
    if (!duplicates.isEmpty()) {
      Map<String, Integer> types = SymbolDefiners.types(objects, archives, duplicates.keySet());
      throw new BuildFailureException(message(duplicates, types, Demangler.demangle(duplicates.keySet()),
          depfiles(objects, archives)));
    }
  }

  /** A member of an archive built in this run, named as the linker names it only when reported. */
  private record Member(String archive, String member) {
    String where() {
      return archive + "(" + member + ")";
    }
  }

  /**
   * Each symbol's definers, in the order they were added. Hashed, not sorted: tens of thousands of
   * symbols go in, nearly all with one definer, which is kept as it came (a name, or a {@link
   * Member} not yet named); a list is made only for a second one, and only duplicates are reported
   * (sorted).
   */
  private static final class Definers {
    private final Map<String, Object> bySymbol = new HashMap<>();

    void add(String symbol, Object definer) {
      Object before = bySymbol.putIfAbsent(symbol, definer);
      if (before == null) {
        return;
      }
      if (before instanceof Named named) {
        named.add(definer);
      } else {
        Named named = new Named();
        named.add(before);
        named.add(definer);
        bySymbol.put(symbol, named);
      }
    }

    void addAll(Map<String, List<String>> found) {
      found.forEach((symbol, where) -> where.forEach(w -> add(symbol, w)));
    }

    Map<String, List<String>> duplicates() {
      Map<String, List<String>> duplicates = new TreeMap<>();
      bySymbol.forEach((symbol, definer) -> {
        if (definer instanceof Named named) {
          duplicates.put(symbol, named.where);
        }
      });
      return duplicates;
    }
  }

  /** Two or more definers of one symbol, named. */
  private static final class Named {
    final List<String> where = new ArrayList<>();

    void add(Object definer) {
      where.add(definer instanceof Member member ? member.where() : (String) definer);
    }
  }

  private static String message(Map<String, List<String>> duplicates, Map<String, Integer> types,
      Map<String, String> readable, Map<String, Path> depfiles) {
    StringBuilder text = new StringBuilder(duplicates.size() + " symbol(s) defined more than once; the link would fail:");
    List<String> sharedHeaders = new ArrayList<>();
    duplicates.forEach((symbol, where) -> {
      Integer type = types.get(symbol);
      String name = readable.get(symbol);
      text.append("\n  ").append(type == null ? "" : type == ElfSymbol.TYPE_FUNCTION ? "function " : "variable ").append(name)
          .append(name.equals(symbol) ? "" : " [" + symbol + "]").append(" defined in ").append(String.join(" and ", where));
      if (type != null && type == ElfSymbol.TYPE_FUNCTION) {
        List<String> headers = naming(plainName(name), headersAllRead(where, depfiles));
        if (!headers.isEmpty()) {
          sharedHeaders.add(name + ": " + String.join(", ", headers));
        }
      }
    });
    boolean functions = duplicates.keySet().stream().anyMatch(s -> Integer.valueOf(ElfSymbol.TYPE_FUNCTION).equals(types.get(s)));
    boolean others = duplicates.keySet().stream().anyMatch(s -> !Integer.valueOf(ElfSymbol.TYPE_FUNCTION).equals(types.get(s)));
    if (functions) {
      text.append("\nA function defined in more than one source is usually defined (not only declared) in a header"
          + " that several sources include: such a header is meant for one translation unit. Include it from one"
          + " source only, or mark its functions 'inline' (or 'static').");
      if (!sharedHeaders.isEmpty()) {
        text.append(" Headers every definer read that name it:\n    ").append(String.join("\n    ", sharedHeaders));
      }
    }
    if (others) {
      text.append("\nIf a header defines a variable, declare it there as 'extern' and define it in one source;"
          + " if only device code needs it, guard the host-side definition with '#ifdef __CUDACC__'"
          + " (or make it 'static' or C++17 'inline'). Otherwise rename one of the definitions.");
    }
    return text.toString();
  }

  /** {@code layernorm_forward} for {@code ns::layernorm_forward(float*, int)}: what a definition spells out. */
  private static String plainName(String readable) {
    String name = readable.contains("(") ? readable.substring(0, readable.indexOf('(')) : readable;
    return name.substring(name.lastIndexOf(':') + 1);
  }

  /** Those of {@code headers} whose text names {@code function} before a parenthesis; all of them when none does. */
  private static List<String> naming(String function, List<String> headers) {
    Pattern use = Pattern.compile("\\b" + Pattern.quote(function) + "\\s*\\(");
    List<String> naming = headers.stream().filter(h -> {
      try {
        return use.matcher(Files.readString(Path.of(h), StandardCharsets.ISO_8859_1)).find();
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }).toList();
    return naming.isEmpty() ? headers : naming;
  }

  /**
   * The project headers (not the system's) that every one of {@code definers} read, from their
   * depfiles; empty when one has no depfile. Where the duplicated function was defined is among them.
   */
  private static List<String> headersAllRead(List<String> definers, Map<String, Path> depfiles) {
    Set<String> common = null;
    for (String definer : definers) {
      Path depfile = depfiles.get(definer);
      if (depfile == null) {
        return List.of();
      }
      List<String> read;
      try {
        read = DepfileParser.prerequisites(Files.readString(depfile));
      } catch (IOException e) {
        return List.of();
      }
      // The first prerequisite is the source itself.
      Set<String> headers = new LinkedHashSet<>(read.subList(Math.min(1, read.size()), read.size()));
      headers.removeIf(h -> h.startsWith("/usr/") || h.startsWith("/opt/"));
      if (common == null) {
        common = headers;
      } else {
        common.retainAll(headers);
      }
    }
    return common == null ? List.of() : List.copyOf(common);
  }

  /**
   * Each definer's depfile where it can be found: beside a host object, and for a member of
   * {@code lib<name>.a} under {@code obj/<name>/} beside the archive, where the build compiled it.
   */
  private static Map<String, Path> depfiles(List<Path> objects, List<Path> archives) throws IOException {
    Map<String, Path> depfiles = new HashMap<>();
    for (Path object : objects) {
      Path depfile = object.resolveSibling(object.getFileName() + ".d");
      if (Files.isRegularFile(depfile)) {
        depfiles.put(object.getFileName().toString(), depfile);
      }
    }
    for (Path archive : archives) {
      String name = archive.getFileName().toString().replaceAll("^lib|\\.a$", "");
      Path folder = archive.resolveSibling("obj").resolve(name);
      if (!Files.isDirectory(folder)) {
        continue;
      }
      Map<String, List<Path>> byMember = new HashMap<>();
      try (Stream<Path> walk = Files.walk(folder)) {
        walk.filter(p -> p.getFileName().toString().endsWith(".o.d")).forEach(p -> byMember.computeIfAbsent(
            p.getFileName().toString().replaceAll("\\.d$", ""), k -> new ArrayList<>()).add(p));
      }
      byMember.forEach((member, found) -> {
        if (found.size() == 1) {
          depfiles.put(SymbolDefiners.where(archive, member), found.get(0));
        }
      });
    }
    return depfiles;
  }
}
