package io.github.kernelarchive.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tag from real libraries' version needs, against auditwheel's policy table. */
class PlatformTagTest {
  private static final String ARCH = "x86_64";
  private static final String MATH = "#include <math.h>\ndouble k_exp(double x) { return exp(x) + log(x); }\n";

  @TempDir Path dir;

  @BeforeEach
  void compiler() throws Exception {
    Installed.assumeCompiler(Language.C);
    boolean x86 = System.getProperty("os.arch").equals("amd64");
    if (!x86) {
      System.out.println("SKIPPED: PlatformTagTest's expected tags are x86_64 figures of the manylinux policies; this"
          + " JVM runs on " + System.getProperty("os.arch"));
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(x86, "x86_64 policy figures");
  }

  @Test
  void theVersionNeedsOfAnElfFileAreReadAsReadelfListsThem() throws Exception {
    Path library = NativeLibraries.build(dir, "libk.so", MATH, "-lm");
    List<ElfObject.VersionNeed> needs = NativeLibraries.parse(library).versionNeeds();
    String readelf = Commands.run(List.of("readelf", "-V", library.toString()), dir);
    for (ElfObject.VersionNeed need : needs) {
      assertTrue(readelf.contains("Name: " + need.version()), need + "\n" + readelf);
    }
    ElfObject.VersionNeed glibc229 = needs.stream().filter(n -> n.version().equals("GLIBC_2.29")).findFirst().orElseThrow();
    assertEquals("libm.so.6", glibc229.library());
    assertEquals(Set.of("exp", "log"), Set.copyOf(glibc229.symbols()));
  }

  @Test
  void theOldestPolicyThatAllowsEveryNeedIsChosenAndTheSymbolsThatSetItAreNamed() throws Exception {
    Path library = NativeLibraries.build(dir, "libk.so", MATH, "-lm");
    PlatformTag.Result result = PlatformTag.compute(List.of(new PlatformTag.ElfFile("k/libk.so",
        NativeLibraries.parse(library))), Set.of(), ARCH, null, null);
    // exp@GLIBC_2.29: the policies go 2_28, then 2_31.
    assertEquals("manylinux_2_31", result.policy().name());
    assertEquals(List.of("manylinux_2_31_x86_64"), result.tags());
    assertEquals("GLIBC_2.29: exp, log (k/libk.so)", result.highest().get("GLIBC").describe());

    Path plain = NativeLibraries.build(dir.resolve("plain"), "libp.so", "int p(int x) { return x + 1; }\n");
    PlatformTag.Result old = PlatformTag.compute(List.of(new PlatformTag.ElfFile("p/libp.so",
        NativeLibraries.parse(plain))), Set.of(), ARCH, null, null);
    assertEquals(List.of("manylinux_2_5_x86_64", "manylinux1_x86_64"), old.tags());
  }

  @Test
  void contentAboveMaxManylinuxFailsNamingTheSymbols() throws Exception {
    Path library = NativeLibraries.build(dir, "libk.so", MATH, "-lm");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> PlatformTag.compute(
        List.of(new PlatformTag.ElfFile("k/libk.so", NativeLibraries.parse(library))), Set.of(), ARCH,
        ManylinuxPolicy.named("manylinux_2_28").orElseThrow(), null));
    assertTrue(e.getMessage().contains("needs manylinux_2_31, newer than <maxManylinux> manylinux_2_28 allows:"
        + " GLIBC_2.29: exp, log (k/libk.so)"), e.getMessage());
  }

  @Test
  void aNeededLibraryOutsideThePolicyFailsNamingItAndTheFileUnlessAWheelProvidesIt() throws Exception {
    Path runtime = NativeLibraries.build(dir.resolve("rt"), "libkrt.so.2", "int krt(void) { return 2; }\n");
    Path library = NativeLibraries.build(dir, "libk.so", "int krt(void);\nint k(void) { return krt(); }\n",
        "-L" + runtime.getParent(), "-l:libkrt.so.2");
    List<PlatformTag.ElfFile> files = List.of(new PlatformTag.ElfFile("k/libk.so", NativeLibraries.parse(library)));
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> PlatformTag.compute(files, Set.of(), ARCH, null, null));
    assertTrue(e.getMessage().startsWith("k/libk.so in the wheel needs libkrt.so.2, which no manylinux policy"),
        e.getMessage());
    assertTrue(e.getMessage().contains("<wheel><dependencies><dependency><library>libkrt.so.2</library>"), e.getMessage());
    assertEquals("manylinux_2_5", PlatformTag.compute(files, Set.of("libkrt.so.2"), ARCH, null, null).policy().name());
  }

  @Test
  void anImportAPolicysBlacklistRefusesRaisesTheTagAsAuditwheelDoes() throws Exception {
    // zlib's uncompress2 (ZLIB_1.2.9): its version fits older policies, yet auditwheel's blacklist
    // keeps it out of every policy before manylinux_2_34, whose systems all have it.
    Path library = NativeLibraries.build(dir, "libk.so", "typedef unsigned long ul;\n"
        + "int uncompress2(unsigned char *, ul *, const unsigned char *, ul *);\n"
        + "int k_inflate(unsigned char *d, ul *n, const unsigned char *s, ul *m) { return uncompress2(d, n, s, m); }\n",
        "-l:libz.so.1");
    assertTrue(ManylinuxPolicy.named("manylinux_2_31").orElseThrow().blacklist().get("libz.so.1")
        .contains("uncompress2"), "the policy data carries auditwheel's blacklist");
    PlatformTag.Result result = PlatformTag.compute(List.of(new PlatformTag.ElfFile("k/libk.so",
        NativeLibraries.parse(library))), Set.of(), ARCH, null, null);
    assertEquals("manylinux_2_34", result.policy().name());
    assertEquals(List.of("uncompress2 from libz.so.1 (k/libk.so), not on every manylinux_2_31 system"),
        result.blacklisted());
    BuildFailureException capped = assertThrows(BuildFailureException.class, () -> PlatformTag.compute(
        List.of(new PlatformTag.ElfFile("k/libk.so", NativeLibraries.parse(library))), Set.of(), ARCH,
        ManylinuxPolicy.named("manylinux_2_28").orElseThrow(), null));
    assertTrue(capped.getMessage().contains("blacklisted uncompress2 from libz.so.1 (k/libk.so)"), capped.getMessage());
  }

  @Test
  void withAGlibcTargetTheTagClaimsNoOlderPolicyUnlessTheContentNeedsANewerOne() throws Exception {
    Path plain = NativeLibraries.build(dir, "libp.so", "int p(int x) { return x + 1; }\n");
    List<PlatformTag.ElfFile> files = List.of(new PlatformTag.ElfFile("p/libp.so", NativeLibraries.parse(plain)));
    assertEquals("manylinux_2_5", PlatformTag.compute(files, Set.of(), ARCH, null, null).policy().name());
    PlatformTag.Result held = PlatformTag.compute(files, Set.of(), ARCH, null, "2.17");
    assertEquals(List.of("manylinux_2_17_x86_64", "manylinux2014_x86_64"), held.tags());
    assertEquals("2.17", held.floor());
    Path math = NativeLibraries.build(dir, "libk.so", MATH, "-lm");
    PlatformTag.Result needsMore = PlatformTag.compute(List.of(new PlatformTag.ElfFile("k/libk.so",
        NativeLibraries.parse(math))), Set.of(), ARCH, null, "2.17");
    assertEquals("manylinux_2_31", needsMore.policy().name(), "exp@GLIBC_2.29 needs more than the target");
  }

  @Test
  void anAarch64LibraryTakesNoPolicyWithoutAarch64() throws Exception {
    Installed.assumeOnPath("aarch64-linux-gnu-gcc", "the aarch64 tag");
    java.nio.file.Files.writeString(dir.resolve("p.c"), "int p(int x) { return x + 1; }\n");
    Commands.run(List.of("aarch64-linux-gnu-gcc", "-shared", "-fPIC", "-o", "libp.so", "p.c"), dir);
    PlatformTag.Result result = PlatformTag.compute(List.of(new PlatformTag.ElfFile("p/libp.so",
        NativeLibraries.parse(dir.resolve("libp.so")))), Set.of(), "aarch64", null, null);
    assertEquals(List.of("manylinux_2_17_aarch64", "manylinux2014_aarch64"), result.tags(),
        "aarch64 begins at manylinux2014");
  }
}
