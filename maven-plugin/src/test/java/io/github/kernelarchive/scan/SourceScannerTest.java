package io.github.kernelarchive.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourceScannerTest {
  @TempDir Path root;

  @Test
  void antPatterns() {
    assertTrue(new AntPattern("**/*.cu").matches("a.cu"));
    assertTrue(new AntPattern("**/*.cu").matches("x/y/a.cu"));
    assertFalse(new AntPattern("*.cu").matches("x/a.cu"));
    assertTrue(new AntPattern("fwd/**").matches("fwd/a/b.cu"));
    assertTrue(new AntPattern("fwd/").matches("fwd/a.cu"));
    assertTrue(new AntPattern("**/hdim?4.cu").matches("f/hdim64.cu"));
    assertFalse(new AntPattern("**/hdim?4.cu").matches("f/hdim128.cu"));
  }

  @Test
  void findsKnownExtensionsSortedWithLanguages() throws Exception {
    for (String name : List.of("b/k.cu", "b/k.cpp", "a.c", "z.hip", "n/m.cxx", "n/m.cc", "README.md", "k.h")) {
      Files.createDirectories(root.resolve(name).getParent());
      Files.writeString(root.resolve(name), "");
    }
    List<SourceFile> found = new SourceScanner().scan(new SourceSet("fwd", root, List.of(), List.of("n/*.cc")));
    assertEquals(List.of("a.c", "b/k.cpp", "b/k.cu", "n/m.cxx", "z.hip"),
        found.stream().map(SourceFile::relativePath).toList());
    assertEquals(List.of(Language.C, Language.CXX, Language.CUDA, Language.CXX, Language.HIP),
        found.stream().map(SourceFile::language).toList());
    assertEquals("fwd/b/k.cu", found.get(2).displayName());
  }

  @Test
  void includedFileWithoutSourceExtensionIsAnError() throws Exception {
    Files.writeString(root.resolve("notes.txt"), "");
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> new SourceScanner().scan(new SourceSet(SourceSet.HOST, root, List.of("*"), List.of())));
    assertTrue(e.getMessage().contains("notes.txt"), e.getMessage());
  }

  @Test
  void missingDirectoryNamesIt() {
    Path missing = root.resolve("nope");
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> new SourceScanner().scan(new SourceSet("mha_fwd", missing, List.of(), List.of())));
    assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains("mha_fwd"), e.getMessage());
  }

  @Test
  void linkedDirectoriesAreFollowedAndALinkCycleIsReported() throws Exception {
    Path real = Files.createDirectories(root.resolve("real/sub"));
    Files.writeString(real.resolve("a.o"), "");
    Files.writeString(root.resolve("real/b.o"), "");
    Path linked = Files.createSymbolicLink(root.resolve("objs"), root.resolve("real"));
    assertEquals(List.of(linked.resolve("b.o"), linked.resolve("sub/a.o")),
        new SourceScanner().scanObjects(new SourceSet("pre", linked, List.of(), List.of())),
        "an <objects> directory that is a link selects what it points to");

    Files.createSymbolicLink(real.resolve("loop"), root.resolve("real"));
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> new SourceScanner().scanObjects(new SourceSet("pre", linked, List.of(), List.of())));
    assertTrue(e.getMessage().contains("leads back to one of its own parent folders") && e.getMessage().contains("loop"),
        e.getMessage());
  }
}
