package io.github.kernelarchive.audit;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject.DynamicEntry;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ElfSymbol;
import io.github.kernelarchive.elf.VersionFloor;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.Paths;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Checks the linked library against its contract and writes {@code audit.txt}: every exported
 * symbol matches an {@code <exports>} pattern (a leak names the symbol and the object it came
 * from), every pattern matches an export, no {@code STB_GNU_UNIQUE} symbol is exported (the
 * dynamic loader shares those between libraries even under {@code RTLD_LOCAL}), and no RPATH or
 * RUNPATH points into the project (it would not exist where the library is installed). All
 * problems are reported at once.
 */
public final class ExportAudit {
  /**
   * Entry points a runtime calls only where they exist (the JVM's {@code JNI_OnLoad} and
   * {@code JNI_OnUnload}, exported with {@code kernel.jni}): their patterns may match nothing.
   */
  private static final Set<String> OPTIONAL_ENTRY_POINTS = Set.of("JNI_OnLoad", "JNI_OnUnload");


  /**
   * What the library exports and needs, as written to the report.
   *
   * @param buildId the GNU build ID in hex, empty when the library has none
   * @param exports the exported names, sorted
   * @param versionedExports the same with their version as {@code nm -D} prints it ({@code kv_report@@KV_2.0})
   * @param floor the newest glibc, libstdc++ and libgcc versions it needs, and what needs them
   */
  public record Report(String soname, String buildId, List<String> needed, List<String> rpaths, List<String> exports,
      List<String> versionedExports, List<VersionFloor> floor) {}

  private ExportAudit() {}

  /**
   * @param file the linked library, possibly still under a temporary name
   * @param library the name it is published under, which the report and messages use
   */
  public static Report audit(Path file, Path library, List<String> patterns, List<Path> objects, List<Path> archives,
      Path projectDirectory, Path reportFile) throws IOException, BuildFailureException {
    ElfObject elf;
    String buildId;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
      elf = ElfObject.parse(bytes);
      buildId = ElfObject.buildId(bytes).orElse("");
    } catch (ElfFormatException e) {
      throw new IOException(library + " is not a valid shared library: " + e.getMessage(), e);
    }
    List<String> exports = new ArrayList<>();
    List<String> versioned = new ArrayList<>();
    List<String> unique = new ArrayList<>();
    for (ElfSymbol symbol : elf.dynamicSymbols()) {
      if (symbol.isDefined() && symbol.isExternal() && symbol.isVisible() && !symbol.name().isEmpty()
          && !symbol.isVersionNode()) {
        exports.add(symbol.name());
        versioned.add(symbol.name() + symbol.version());
        if (symbol.binding() == ElfSymbol.GNU_UNIQUE) {
          unique.add(symbol.name());
        }
      }
    }
    exports.sort(null);
    versioned.sort(null);
    String soname = "";
    List<String> needed = new ArrayList<>();
    List<String> rpaths = new ArrayList<>();
    for (DynamicEntry entry : elf.dynamicEntries()) {
      if (entry.tag() == ElfObject.DT_SONAME) {
        soname = entry.value();
      } else if (entry.tag() == ElfObject.DT_NEEDED) {
        needed.add(entry.value());
      } else {
        for (String path : entry.value().split(":")) {
          rpaths.add((entry.tag() == ElfObject.DT_RPATH ? "RPATH " : "RUNPATH ") + path);
        }
      }
    }
    Report report = new Report(soname, buildId, needed, rpaths, exports, versioned, VersionFloor.of(elf));

    List<String> problems = new ArrayList<>();
    for (ElfSymbol symbol : elf.dynamicSymbols()) {
      if (!symbol.isDefined() && (symbol.visibility() == 1 || symbol.visibility() == 2)) {
        // gold leaves an undefined weak hidden reference to the loader; glibc then binds it inside
        // the library itself, to its load address, so "&f != nullptr" reads true for a missing f.
        problems.add(symbol.name() + " is undefined with hidden visibility in the dynamic symbol table (a weak"
            + " hidden reference the linker left to the loader, as gold does): glibc's loader resolves it to the"
            + " library's load address, not null, so a check that it is missing reads false. Link with"
            + " kernel.linker=mold, lld or bfd, which resolve it to null");
      }
    }
    if (elf.hasDynamicTag(ElfObject.DT_RELR)
        && elf.versionNeeds().stream().noneMatch(n -> n.version().equals("GLIBC_ABI_DT_RELR"))) {
      // mold 1.10 writes packed relocations without the version need: glibc 2.36+ then refuses the
      // library ("DT_RELR without GLIBC_ABI_DT_RELR dependency"), and older ones skip the relocations.
      problems.add("packed relative relocations (DT_RELR) without a need of GLIBC_ABI_DT_RELR: no glibc loads that"
          + " right (2.36 and later refuse it, older ones skip the relocations). Remove -z pack-relative-relocs from"
          + " the link flags, or link with kernel.linker=bfd, which adds the need");
    }
    if (!patterns.isEmpty()) {
      List<Pattern> compiled = patterns.stream().map(ExportAudit::glob).toList();
      List<String> leaks = exports.stream().filter(name -> compiled.stream().noneMatch(p -> p.matcher(name).matches())).toList();
      if (!leaks.isEmpty()) {
        Map<String, List<String>> definers = SymbolDefiners.of(objects, archives, ElfSymbol::isExternal);
        for (String leak : leaks) {
          problems.add("exported symbol " + leak + " (from " + String.join(", ", definers.getOrDefault(leak,
              List.of("a linked library"))) + ") matches no <exports> pattern: hide it (static, or"
              + " visibility hidden) or add a pattern for it");
        }
      }
      // Archive members are compiled hidden and linked privately. A C function of theirs that a
      // pattern names and that nothing in the library calls (a launcher beside its kernel, under a
      // wildcard that also matches host exports) can never be called: it would be silently lost
      // while the build looks green. The archives' indexes list their symbols, hidden ones too,
      // without reading a member; only such candidates cost a read for references.
      Map<String, List<String>> archiveDefiners = SymbolDefiners.fromIndexes(archives);
      Map<Integer, List<String>> privateMatches = new TreeMap<>();
      Set<String> candidates = new TreeSet<>();
      for (int i = 0; i < patterns.size(); i++) {
        Pattern pattern = compiled.get(i);
        List<String> matches = archiveDefiners.keySet().stream()
            .filter(name -> pattern.matcher(name).matches() && !exports.contains(name)).sorted().toList();
        privateMatches.put(i, matches);
        if (exports.stream().anyMatch(name -> pattern.matcher(name).matches())) {
          // C names only: a C++ symbol nothing refers to by name may still be reached (a virtual
          // destructor through its vtable), and a launcher meant for the API is extern "C".
          matches.stream().filter(name -> !name.startsWith("_Z")).forEach(candidates::add);
        }
      }
      Set<String> called = candidates.isEmpty() ? Set.of() : SymbolDefiners.referenced(objects, archives, candidates);
      for (int i = 0; i < patterns.size(); i++) {
        Pattern pattern = compiled.get(i);
        List<String> inArchives = privateMatches.get(i);
        if (exports.stream().noneMatch(name -> pattern.matcher(name).matches())) {
          if (inArchives.isEmpty() && OPTIONAL_ENTRY_POINTS.contains(patterns.get(i))) {
            continue;
          }
          if (inArchives.isEmpty()) {
            problems.add("<export> pattern '" + patterns.get(i) + "' matches no exported symbol: fix or remove it"
                + " (is the function defined in a host source of <sources>?)");
          } else {
            problems.add("<export> pattern '" + patterns.get(i) + "' matches only archive members' symbols ("
                + describe(inArchives, archiveDefiners) + "): archives are private by design, so a second copy of"
                + " the kernels can never hijack them. Export a wrapper from a host source in <sources> that calls it.");
          }
          continue;
        }
        List<String> lost = inArchives.stream().filter(name -> candidates.contains(name) && !called.contains(name)).toList();
        if (!lost.isEmpty()) {
          problems.add("<export> pattern '" + patterns.get(i) + "' matches archive members' functions that nothing"
              + " in the library calls (" + describe(lost, archiveDefiners) + "): archives are private by design, so"
              + " they are not exported and can never be called. Export a wrapper from a host source in <sources>"
              + " that calls it, move the function into <sources>, or narrow the pattern.");
        }
      }
    }
    for (String name : unique) {
      problems.add("exported symbol " + name + " is STB_GNU_UNIQUE (a C++ inline or template static): the loader"
          + " would share it with any other library defining it. Keep it out of <exports> or compile with -fno-gnu-unique");
    }
    for (String rpath : rpaths) {
      String path = rpath.substring(rpath.indexOf(' ') + 1);
      if (Paths.inside(path, projectDirectory)) {
        problems.add(rpath + " points into the project directory and will not exist where the library is"
            + " installed: use $ORIGIN-relative paths in <linkFlags>");
      }
    }
    writeReport(reportFile, library, report, patterns, problems);
    if (!problems.isEmpty()) {
      throw new BuildFailureException("Audit of " + library.getFileName() + " failed (" + problems.size()
          + " problem(s); report in " + reportFile + "):\n  " + String.join("\n  ", problems));
    }
    return report;
  }

  /** Version-script globs: {@code *} any run, {@code ?} one character, {@code [...]} a class. */
  public static Pattern glob(String pattern) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        case '[' -> {
          int end = pattern.indexOf(']', i + 1);
          if (end < 0) {
            regex.append("\\[");
          } else {
            regex.append('[').append(pattern, i + 1, end).append(']');
            i = end;
          }
        }
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }

  /** {@code name in lib.a(m.o)} for the first three names, and how many more. */
  private static String describe(List<String> names, Map<String, List<String>> definers) {
    List<String> shown = names.stream().limit(3).map(n -> n + " in " + String.join(", ", definers.get(n))).toList();
    return String.join("; ", shown) + (names.size() > 3 ? "; " + (names.size() - 3) + " more" : "");
  }

  /** The report, with the problems first when there are any (then the library was not published). */
  private static void writeReport(Path file, Path library, Report report, List<String> patterns, List<String> problems)
      throws IOException {
    StringBuilder text = new StringBuilder("library ").append(library).append('\n');
    if (!problems.isEmpty()) {
      text.append("FAILED, not published: ").append(problems.size()).append(" problem(s)\n");
      problems.forEach(p -> text.append("  ").append(p).append('\n'));
    }
    text.append("SONAME ").append(report.soname()).append('\n');
    if (!report.buildId().isEmpty()) {
      text.append("BUILD_ID ").append(report.buildId()).append('\n');
    }
    report.needed().forEach(n -> text.append("NEEDED ").append(n).append('\n'));
    report.rpaths().forEach(r -> text.append(r).append('\n'));
    report.floor().forEach(f -> text.append("floor ").append(f.describe(Integer.MAX_VALUE)).append('\n'));
    text.append("export patterns ").append(patterns.isEmpty()
        ? "none: every visible symbol of the host sources is exported, archive members stay private"
        : String.join(" ", patterns)).append('\n');
    text.append("exports ").append(report.exports().size()).append('\n');
    report.versionedExports().forEach(e -> text.append("  ").append(e).append('\n'));
    AtomicFiles.writeIfChanged(file, text.toString().getBytes(StandardCharsets.UTF_8));
  }
}
