package io.github.kernelarchive.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathsTest {
  @TempDir Path dir;

  @Test
  void containmentIsByPathElementsNotStringPrefixes() {
    assertFalse(Paths.inside("/w/proj-sdk/lib", Path.of("/w/proj")));
    assertTrue(Paths.inside("/w/proj/../proj/x", Path.of("/w/proj")));
    assertTrue(Paths.inside("/w/proj", Path.of("/w/proj/")));
    assertFalse(Paths.inside("/w/proj/../other", Path.of("/w/proj")));
    assertFalse(Paths.inside("$ORIGIN/../lib", Path.of("/w/proj")), "relative paths are never inside");
  }

  @Test
  void aProjectReachedThroughALinkIsRecognised() throws Exception {
    Path project = Files.createDirectories(dir.resolve("real-project/target"));
    Path link = Files.createSymbolicLink(dir.resolve("checkout"), dir.resolve("real-project"));
    assertTrue(Paths.inside(link.resolve("target").toString(), dir.resolve("real-project")));
    assertTrue(Paths.inside(project.toString(), link));
  }

  @Test
  void absoluteTextIsTheNormalAbsolutePath() {
    assertEquals("/w/obj/k.o", Paths.absoluteText(Path.of("/w/obj/k.o")));
    assertEquals("/w/obj/k.o", Paths.absoluteText(Path.of("/w/./obj/../obj/k.o")));
    assertEquals("/w/.hidden/k.o", Paths.absoluteText(Path.of("/w/.hidden/k.o")));
    assertEquals(Path.of("obj/k.o").toAbsolutePath().normalize().toString(), Paths.absoluteText(Path.of("obj/k.o")));
  }
}
