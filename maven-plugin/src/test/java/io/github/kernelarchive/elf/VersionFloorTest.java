package io.github.kernelarchive.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The floor of a real C++ library, against what readelf lists. */
class VersionFloorTest {
  @TempDir Path dir;

  @Test
  void eachFamilysNewestRequiredVersionAndTheImportsThatRequireIt() throws Exception {
    Installed.assumeCompiler(Language.CXX);
    Path source = Files.writeString(dir.resolve("f.cpp"), String.join("\n",
        "#include <cmath>", "#include <string>", "#include <thread>",
        "extern \"C\" double f_exp(double x) { return std::exp(x) + std::log(x); }",
        "extern \"C\" int f_thread(void) { int v = 0; std::thread t([&] { v = 3; }); t.join(); return v; }",
        "extern \"C\" int f_throw(int x) { try { if (x) throw std::string(\"x\"); } catch (...) { return 1; } return 0; }",
        ""));
    Path library = dir.resolve("libf.so");
    Commands.run(List.of("c++", "-shared", "-fPIC", "-O1", "-o", library.toString(), source.toString()), dir);
    List<VersionFloor> floor = VersionFloor.of(ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(library))));
    Map<String, VersionFloor> byFamily = floor.stream().collect(Collectors.toMap(VersionFloor::family, f -> f));

    assertEquals(List.of("CXXABI", "GCC", "GLIBC", "GLIBCXX"), floor.stream().map(VersionFloor::family).toList());
    assertEquals("2.29", byFamily.get("GLIBC").version(), "exp and log of glibc 2.29: " + floor);
    assertTrue(byFamily.get("GLIBC").symbols().containsAll(List.of("exp", "log")), floor.toString());
    assertTrue(byFamily.get("GLIBCXX").symbols().stream().anyMatch(s -> s.contains("thread")), floor.toString());
    // Every version readelf names is at or below the floor of its family.
    String readelf = Commands.run(List.of("readelf", "-V", library.toString()), dir);
    for (VersionFloor f : floor) {
      assertTrue(readelf.contains("Name: " + f.family() + "_" + f.version() + " "), f + "\n" + readelf);
      Matcher m = Pattern.compile("Name: " + f.family() + "_(\\d[\\d.]*) ").matcher(readelf);
      while (m.find()) {
        assertTrue(VersionFloor.VERSION_ORDER.compare(m.group(1), f.version()) <= 0, m.group() + " above " + f);
      }
    }
    assertTrue(byFamily.get("GLIBC").describe(1).matches("GLIBC_2\\.29: \\w+ and \\d+ more"), byFamily.get("GLIBC").describe(1));
  }

  @Test
  void versionsCompareNumberByNumber() {
    assertTrue(VersionFloor.VERSION_ORDER.compare("2.9", "2.17") < 0);
    assertTrue(VersionFloor.VERSION_ORDER.compare("3.4.29", "3.4.3") > 0);
    assertTrue(VersionFloor.VERSION_ORDER.compare("2.2.5", "2.2") > 0);
  }
}
