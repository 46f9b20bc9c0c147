package io.github.kernelarchive.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.pipeline.Commands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Libraries linked by the real g++, audited. */
class ExportAuditTest {
  @TempDir Path dir;

  private Path object(String name, String source) throws Exception {
    Path src = Files.writeString(dir.resolve(name + ".cpp"), source);
    Path object = dir.resolve(name + ".o");
    run(List.of("c++", "-c", "-fPIC", "-O1", "-o", object.toString(), src.toString()));
    return object;
  }

  private Path library(List<Path> objects, String... flags) throws Exception {
    Path library = dir.resolve("libaudited.so");
    List<String> argv = new ArrayList<>(List.of("c++", "-shared", "-Wl,-soname,libaudited.so", "-o", library.toString()));
    objects.forEach(o -> argv.add(o.toString()));
    argv.addAll(List.of(flags));
    run(argv);
    return library;
  }

  private void run(List<String> argv) throws Exception {
    Commands.run(argv, dir);
  }

  private String failure(Path library, List<String> patterns, List<Path> objects) {
    return assertThrows(BuildFailureException.class, () -> ExportAudit.audit(library, library, patterns, objects, List.of(),
        dir, dir.resolve("audit.txt"))).getMessage();
  }

  @Test
  void aCleanLibraryPassesAndIsReported() throws Exception {
    Path api = object("api", "#include <cstdio>\nextern \"C\" int mha_fwd() { return std::puts(\"fwd\"); }\n"
        + "static int helper() { return 2; }\nextern \"C\" int mha_bwd() { return helper(); }\n");
    Path library = library(List.of(api));
    ExportAudit.Report report = ExportAudit.audit(library, library, List.of("mha_*"), List.of(api), List.of(),
        dir, dir.resolve("audit.txt"));
    assertEquals(List.of("mha_bwd", "mha_fwd"), report.exports());
    assertEquals("libaudited.so", report.soname());
    String text = Files.readString(dir.resolve("audit.txt"));
    assertTrue(text.contains("SONAME libaudited.so") && text.contains("NEEDED libc.so.6") && text.contains("  mha_fwd"), text);
  }

  @Test
  void aLeakIsNamedWithItsObjectAndAPatternThatMatchesNothingFails() throws Exception {
    Path api = object("api", "extern \"C\" int mha_fwd() { return 1; }\n");
    Path leaky = object("leaky", "extern \"C\" int internal_tile_size() { return 64; }\n");
    String message = failure(library(List.of(api, leaky)), List.of("mha_*", "mha_nothing_?"), List.of(api, leaky));
    assertTrue(message.contains("exported symbol internal_tile_size (from leaky.o) matches no <exports> pattern"), message);
    assertTrue(message.contains("<export> pattern 'mha_nothing_?' matches no exported symbol"), message);
    assertTrue(message.contains("2 problem(s)"), message);
  }

  @Test
  void gnuUniqueExportsFail() throws Exception {
    // An inline function's static: g++ makes it STB_GNU_UNIQUE, shared across libraries by the loader.
    Path api = object("api", "inline int &counter() { static int c = 0; return c; }\n"
        + "extern \"C\" int mha_count() { return ++counter(); }\n");
    String message = failure(library(List.of(api)), List.of("mha_*", "_Z*"), List.of(api));
    assertTrue(message.contains("is STB_GNU_UNIQUE"), message);
    assertTrue(message.contains("_ZZ7countervE1c"), message);
  }

  @Test
  void anRpathIntoTheProjectFails() throws Exception {
    Path api = object("api", "extern \"C\" int mha_fwd() { return 1; }\n");
    String message = failure(library(List.of(api), "-Wl,-rpath," + dir.resolve("target/kernel") + ":$ORIGIN"),
        List.of("mha_*"), List.of(api));
    assertTrue(message.contains("RUNPATH " + dir.resolve("target/kernel") + " points into the project directory"), message);
    assertTrue(!message.contains("$ORIGIN points"), message);
  }

  @Test
  void withoutExportsTheStandardLibrarysUniqueStaticsStayLocalButTheUsersStillFail() throws Exception {
    Path api = object("api", "#include <map>\n#include <string>\n"
        + "inline int &counter() { static int c = 0; return c; }\n"
        + "std::string name(unsigned long x) { std::map<std::string, int> m; m[\"a\"] = ++counter();"
        + " return std::to_string(x) + std::to_string(m.size()); }\n");
    List<String> system = SystemHeaderSymbols.uniqueIn(List.of(api));
    assertTrue(system.contains("_ZZNSt8__detail18__to_chars_10_implImEEvPcjT_E8__digits"), system.toString());
    assertTrue(!system.contains("_ZZ7countervE1c"), "the user's own static is not a system symbol");
    Path script = Files.writeString(dir.resolve("all.map"),
        io.github.kernelarchive.link.SharedLibraryLinker.exportAllScript(null, system));
    String message = failure(library(List.of(api), "-Wl,--version-script=" + script), List.of(), List.of(api));
    assertTrue(message.contains("exported symbol _ZZ7countervE1c is STB_GNU_UNIQUE"), message);
    assertTrue(message.contains("1 problem(s)") && !message.contains("__to_chars"), message);
  }
}
