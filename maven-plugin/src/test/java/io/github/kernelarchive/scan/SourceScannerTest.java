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
    assertTrue(AntPatterns.of(List.of("**/*.cu")).matches("a.cu"));
    assertTrue(AntPatterns.of(List.of("**/*.cu")).matches("x/y/a.cu"));
    assertFalse(AntPatterns.of(List.of("*.cu")).matches("x/a.cu"));
    assertTrue(AntPatterns.of(List.of("fwd/**")).matches("fwd/a/b.cu"));
    assertTrue(AntPatterns.of(List.of("fwd/")).matches("fwd/a.cu"));
    assertTrue(AntPatterns.of(List.of("**/hdim?4.cu")).matches("f/hdim64.cu"));
    assertFalse(AntPatterns.of(List.of("**/hdim?4.cu")).matches("f/hdim128.cu"));
    assertTrue(AntPatterns.of(List.of("fwd/**/bf16/*.cu")).matches("fwd/bf16/a.cu"));
    assertTrue(AntPatterns.of(List.of("fwd/**/bf16/*.cu")).matches("fwd/h64/sm90/bf16/a.cu"));
    assertFalse(AntPatterns.of(List.of("fwd/**/bf16/*.cu")).matches("fwd/h64/fp16/a.cu"));
    assertFalse(AntPatterns.of(List.of("**/*.cu")).matches("x/a.CU"), "case-sensitive, as Linux paths are");
    assertTrue(AntPatterns.of(List.of("fwd\\*.cu")).matches("fwd/a.cu"), "Windows separators in a pom");
    assertFalse(AntPatterns.of(List.of()).matches("a.cu"), "no patterns match nothing");
  }

  @Test
  void includesExcludesAndMavensDefaultExcludes() throws Exception {
    for (String name : List.of("fwd/h64/a.cu", "fwd/h64/a.cu~", "fwd/h128/b.cu", "fwd/.#b.cu", "bwd/c.cu",
        ".git/objects/stray.cu", "fwd/.svn/d.cu", "fwd/h64/#e.cu#", "fwd/test/t.cu")) {
      Files.createDirectories(root.resolve(name).getParent());
      Files.writeString(root.resolve(name), "");
    }
    List<SourceFile> found = new SourceScanner().scan(new SourceSet("fwd", root, List.of("fwd/**", "**/c.?u"),
        List.of("**/test/**")));
    assertEquals(List.of("bwd/c.cu", "fwd/h128/b.cu", "fwd/h64/a.cu"),
        found.stream().map(SourceFile::relativePath).toList());
    // With no <includes> the default (every known source extension) meets the same default excludes.
    assertEquals(List.of("bwd/c.cu", "fwd/h128/b.cu", "fwd/h64/a.cu", "fwd/test/t.cu"),
        new SourceScanner().scan(new SourceSet("fwd", root, List.of(), List.of())).stream()
            .map(SourceFile::relativePath).toList());
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
        files(new SourceScanner().scanObjects(new SourceSet("pre", linked, List.of(), List.of()))),
        "an <objects> directory that is a link selects what it points to");

    Files.createSymbolicLink(real.resolve("loop"), root.resolve("real"));
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> new SourceScanner().scanObjects(new SourceSet("pre", linked, List.of(), List.of())));
    assertTrue(e.getMessage().contains("leads back to one of its own parent folders") && e.getMessage().contains("loop"),
        e.getMessage());
    assertTrue(e.getMessage().contains("<exclude>sub/loop/**</exclude>"), e.getMessage());
    // Excluded whole, the cycle is not followed.
    assertEquals(List.of(linked.resolve("b.o"), linked.resolve("sub/a.o")),
        files(new SourceScanner().scanObjects(new SourceSet("pre", linked, List.of(), List.of("sub/loop/**")))));
  }

  private static List<Path> files(List<SourceScanner.Found> found) {
    return found.stream().map(SourceScanner.Found::file).toList();
  }
}
