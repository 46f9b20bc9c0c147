package io.github.kernelarchive.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files a link reads, from the linker command the driver prints. */
class LinkInputsTest {
  @TempDir Path dir;

  @Test
  void splitsWordsAsDriversQuoteThem() {
    assertEquals(List.of("/usr/bin/ld", "-plugin-opt=-pass-through=-lc", "a b.o", "say \"hi\"", "x\\y", ""),
        LinkInputs.words(" /usr/bin/ld \"-plugin-opt=-pass-through=-lc\" \"a b.o\" \"say \\\"hi\\\"\" \"x\\\\y\" \"\""));
  }

  @Test
  void takesTheLastCommandLine() {
    String output = "Using built-in specs.\nCOLLECT_GCC=c++\n /usr/lib/gcc/cc1 -quiet x.c\nCOLLECT_GCC_OPTIONS='-shared'\n"
        + " /usr/lib/gcc/collect2 -shared -o out.so crti.o\n";
    assertEquals(List.of("/usr/lib/gcc/collect2", "-shared", "-o", "out.so", "crti.o"), LinkInputs.linkerCommand(output));
    assertEquals(List.of(), LinkInputs.linkerCommand("gcc: error: no input files\n"));
  }

  @Test
  void findsFilesLibrariesAndOptionValuesAsTheLinkerWould() throws Exception {
    Path first = Files.createDirectories(dir.resolve("first"));
    Path second = Files.createDirectories(dir.resolve("second"));
    Path object = Files.writeString(dir.resolve("host.o"), "o");
    Path script = Files.writeString(dir.resolve("exports.map"), "{ global: *; };");
    Path written = Files.writeString(dir.resolve("out.so"), "old output");
    Path soname = Files.writeString(dir.resolve("libp.so"), "the library linked last time");
    Path sharedFirst = Files.writeString(first.resolve("libboth.so"), "\u007fELF shared");
    Files.writeString(second.resolve("libboth.a"), "!<arch>\n");
    Path staticSecond = Files.writeString(second.resolve("libonly.a"), "!<arch>\n");
    Path staticBoth = Files.writeString(first.resolve("libboth.a"), "!<arch>\n");
    Path exact = Files.writeString(second.resolve("libexact.so.3"), "\u007fELF");

    List<Path> files = LinkInputs.files(List.of("ld", "-o", written.toString(), object.toString(), "-shared",
        "--version-script=" + script, "-lboth", "-soname", soname.getFileName().toString(), "-L", first.toString(), "-Bstatic", "-lboth", "-Bdynamic",
        "-L" + second, "-lonly", "-l:libexact.so.3", "-lmissing", "--hash-style=gnu", "relative-missing.o"), dir);

    // -o's file is written, not read; -soname's value names no input even where a file has that name; -lboth finds the .so where shared libraries are taken and the
    // .a after -Bstatic, both in the first folder that has one, whatever the -L's place on the line.
    assertEquals(List.of(object, script, sharedFirst, staticBoth, staticSecond, exact), files);
  }

  @Test
  void followsTheAbsolutePathsOfALinkerScript() throws Exception {
    Path nonshared = Files.writeString(dir.resolve("libc_nonshared.a"), "!<arch>\n");
    Path loader = Files.writeString(dir.resolve("ld-linux.so.2"), "\u007fELF");
    Path script = Files.writeString(dir.resolve("libc.so"), "/* GNU ld script */\nOUTPUT_FORMAT(elf64-x86-64)\n"
        + "GROUP ( " + nonshared + " /no/such/libc.so.6 AS_NEEDED (" + loader + ") )\n");

    assertEquals(List.of(script, nonshared, loader), LinkInputs.files(List.of("ld", "-L" + dir, "-lc"), dir));
    assertEquals(List.of(), LinkInputs.namedByScript(nonshared), "an archive names nothing");
  }

  @Test
  void asksTheRealDriver() throws Exception {
    Path extra = Files.writeString(dir.resolve("libextra.a"), "!<arch>\n");
    Path memo = dir.resolve("lib.so.inputs");
    List<Path> files = LinkInputs.of(new Tool(Path.of("c++"), "c++"), new ProcessRunner(Map.of()),
        List.of("-shared", "-L" + dir, "-lextra"), dir, memo);

    assertTrue(files.contains(extra), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().equals("crti.o")), "start files: " + files);
    assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().startsWith("libstdc++.so")),
        "the C++ runtime: " + files);
    assertFalse(files.contains(Path.of("/dev/null")), files.toString());

    // Asked once: the next link with the same driver and command reads the answer kept beside it
    // (a word added to the kept command shows it was read, not asked again).
    Path marker = Files.writeString(dir.resolve("marker.o"), "x");
    Files.writeString(memo, Files.readString(memo).stripTrailing() + "\n" + marker + "\n");
    List<Path> again = LinkInputs.of(new Tool(Path.of("c++"), "c++"), new ProcessRunner(Map.of()),
        List.of("-shared", "-L" + dir, "-lextra"), dir, memo);
    assertTrue(again.contains(marker) && again.containsAll(files), again.toString());
    // Another command asks again.
    List<Path> other = LinkInputs.of(new Tool(Path.of("c++"), "c++"), new ProcessRunner(Map.of()),
        List.of("-shared", "-L" + dir), dir, memo);
    assertFalse(other.contains(marker) || other.contains(extra), other.toString());
  }
}
