package io.github.kernelarchive.glibc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.VersionFloor;
import io.github.kernelarchive.link.LinkRequest;
import io.github.kernelarchive.link.SharedLibraryLinker;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.ContentHashes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kernel.glibc=2.17 with real gcc, the real linker and the host's glibc: a C++ library that uses
 * threads, the filesystem library, exceptions, dlopen, condition variables, libm, memcpy and
 * fmemopen needs nothing above 2.17, binds each import to the version it should, and answers the
 * same as the plain link, here and under glibc 2.23's own loader when that is unpacked.
 */
class GlibcFloorTest {
  /** Where .ci/run unpacks Ubuntu 16.04's libc6 (glibc 2.23); KA_OLD_GLIBC names another. */
  static final Path OLD_GLIBC = Path.of(Objects.requireNonNullElse(System.getenv("KA_OLD_GLIBC"),
      "/opt/kernel-archive/glibc-2.23"));
  static final GlibcTarget TARGET = new GlibcTarget("2.17");
  /** Each import the probe makes of glibc, and the version that was the default at 2.17. */
  static final Map<String, String> INTENDED = Map.ofEntries(
      Map.entry("dlopen", "GLIBC_2.2.5"), Map.entry("dlsym", "GLIBC_2.2.5"), Map.entry("dlclose", "GLIBC_2.2.5"),
      Map.entry("pthread_create", "GLIBC_2.2.5"), Map.entry("pthread_join", "GLIBC_2.2.5"),
      Map.entry("pthread_cond_wait", "GLIBC_2.3.2"), Map.entry("pthread_cond_signal", "GLIBC_2.3.2"),
      Map.entry("exp", "GLIBC_2.2.5"), Map.entry("log", "GLIBC_2.2.5"), Map.entry("pow", "GLIBC_2.2.5"),
      Map.entry("memcpy", "GLIBC_2.14"), Map.entry("fmemopen", "GLIBC_2.2.5"));

  static Toolchain toolchain;

  @BeforeAll
  static void compilers() throws Exception {
    boolean x86 = ElfObject.hostMachine() == ElfObject.EM_X86_64;
    if (!x86) {
      System.out.println("SKIPPED: GlibcFloorTest: kernel.glibc is for x86_64 hosts; this one is "
          + ElfObject.machineName(ElfObject.hostMachine()));
    }
    assumeTrue(x86, "x86_64 only");
    io.github.kernelarchive.pipeline.Installed.assumeCompiler(Language.CXX);
    toolchain = new Toolchain(ToolchainConfig.defaults(), System.getenv());
  }

  @Test
  void aCxxLibraryNeedsNothingAbove217AndAnswersAsThePlainOne(@TempDir Path dir) throws Exception {
    Path probe = compile(dir, "probe.cpp", Language.CXX);
    Path plain = link(dir.resolve("plain"), probe, null, false);
    Path old = link(dir.resolve("old"), probe, new GlibcFloor(TARGET, cc(), toolchain.runner(), dir.resolve("work"),
        ElfObject.hostMachine()), true);

    ElfObject elf = ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(old)));
    for (VersionFloor floor : VersionFloor.of(elf)) {
      assertFalse(floor.family().equals("GLIBCXX") || floor.family().equals("CXXABI"), floor.describe(5));
      assertTrue(!floor.family().equals("GLIBC") || TARGET.admits(floor.version()), floor.describe(20));
    }
    Map<String, String> bound = new TreeMap<>();
    elf.versionNeeds().forEach(n -> n.symbols().forEach(s -> bound.put(s, n.version())));
    INTENDED.forEach((symbol, version) -> assertEquals(version, bound.get(symbol), symbol + " binds to"));
    List<String> needed = elf.dynamicEntries().stream().filter(e -> e.tag() == ElfObject.DT_NEEDED)
        .map(ElfObject.DynamicEntry::value).toList();
    assertTrue(needed.containsAll(List.of("libdl.so.2", "libpthread.so.0")), needed.toString());
    assertFalse(needed.contains("libstdc++.so.6") || needed.contains("libgcc_s.so.1"), needed.toString());
    List<String> exported = elf.dynamicSymbols().stream().filter(s -> s.isDefined() && s.isVisible())
        .filter(s -> !s.isVersionNode()).map(s -> s.name()).toList();
    assertEquals(List.of("probe"), exported, "exported");

    Path loader = linkProgram(dir, compile(dir, "loader.c", Language.C));
    String expected = run(List.of(loader.toString(), plain.toString(), dir.resolve("a").toString()));
    assertTrue(expected.startsWith("thread=7 tls_dtor=1 fs=1 stat=1 caught=boom dlopen=1 cond=1 math="), expected);
    assertEquals(expected, run(List.of(loader.toString(), old.toString(), dir.resolve("b").toString())));

    Path oldLoader = OLD_GLIBC.resolve("lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
    if (!Files.exists(oldLoader)) {
      System.out.println("SKIPPED (part): no glibc 2.23 at " + OLD_GLIBC + " to load the library with; .ci/run unpacks"
          + " Ubuntu 16.04's libc6_2.23-0ubuntu3_amd64.deb there (or set KA_OLD_GLIBC)");
      return;
    }
    // The loader program itself is held to 2.17 the same way, then both run on glibc 2.23.
    Path oldProgram = redirected(dir, loader);
    String libraries = OLD_GLIBC.resolve("lib/x86_64-linux-gnu").toString();
    assertEquals(expected, run(List.of(oldLoader.toString(), "--library-path", libraries, oldProgram.toString(),
        old.toString(), dir.resolve("c").toString())));
    String refused = run(List.of(oldLoader.toString(), "--library-path", libraries, oldProgram.toString(),
        plain.toString(), dir.resolve("d").toString()));
    assertTrue(refused.contains("GLIBC_2.") && refused.contains("not found"), refused);
  }

  @Test
  void aSymbolNewerThanTheTargetFailsNamingItAndItsObject(@TempDir Path dir) throws Exception {
    Path object = compile(dir, "getrandom.c", Language.C);
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> link(dir.resolve("out"), object,
        new GlibcFloor(TARGET, cc(), toolchain.runner(), dir.resolve("work"),
        ElfObject.hostMachine()), true));
    assertTrue(e.getMessage().contains("getrandom (GLIBC_2.25) has no version at or below 2.17"), e.getMessage());
    assertTrue(e.getMessage().contains("getrandom.c.o (getrandom)"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("out/libp.so")), "nothing published");
  }

  @Test
  void theTargetIsInTheLinkKeyChangingItAloneRelinks(@TempDir Path dir) throws Exception {
    Path probe = compile(dir, "probe.cpp", Language.CXX);
    Path out = dir.resolve("out");
    GlibcFloor at234 = new GlibcFloor(new GlibcTarget("2.34"), cc(), toolchain.runner(), dir.resolve("work"),
        ElfObject.hostMachine());
    assertTrue(linkResult(out, probe, at234).relinked());
    assertFalse(linkResult(out, probe, at234).relinked(), "nothing changed");
    GlibcFloor at217 = new GlibcFloor(TARGET, cc(), toolchain.runner(), dir.resolve("work"),
        ElfObject.hostMachine());
    SharedLibraryLinker.Result again = linkResult(out, probe, at217);
    assertTrue(again.relinked(), "only kernel.glibc changed, and the library was linked again");
    assertTrue(VersionFloor.of(ElfObject.read(again.library())).stream()
        .allMatch(f -> !f.family().equals("GLIBC") || TARGET.admits(f.version())));
  }

  private static SharedLibraryLinker.Result linkResult(Path out, Path object, GlibcFloor floor) throws Exception {
    return linkResult(out, object, floor, true);
  }

  @Test
  void packedRelocationsAreRefusedUnderEveryLinkerForTheyNeedTheLoaderOf236(@TempDir Path dir) throws Exception {
    Path object = compile(dir, "loader.c", Language.C);
    Files.createDirectories(dir.resolve("out"));
    SharedLibraryLinker linker = new SharedLibraryLinker(toolchain.compiler(Language.CXX).orElseThrow(),
        toolchain.linker(), toolchain.runner(), dir.resolve("out"), new ContentHashes(),
        new GlibcFloor(TARGET, cc(), toolchain.runner(), dir.resolve("work"),
        ElfObject.hostMachine()), true);
    // bfd writes DT_RELR and needs GLIBC_ABI_DT_RELR; mold 1.10 writes DT_RELR alone; lld 14 does not
    // know the option (a warning) and writes neither. The flag is refused under each, before the link.
    for (String name : List.of("bfd", "mold", "lld")) {
      if (!io.github.kernelarchive.pipeline.Installed.onPath("ld." + name)) {
        System.out.println("SKIPPED: GlibcFloorTest's DT_RELR case with ld." + name + ", which is not installed ("
            + io.github.kernelarchive.pipeline.Installed.howToInstall("ld." + name) + ")");
        continue;
      }
      BuildFailureException e = assertThrows(BuildFailureException.class, () -> linker.link(new LinkRequest("p",
          List.of(object), List.of(), true, List.of(), List.of("main"), null,
          List.of("-fuse-ld=" + name, "-Wl,-z,pack-relative-relocs", "-ldl"), null)), name);
      assertTrue(e.getMessage().contains("DT_RELR") && e.getMessage().contains("remove -z pack-relative-relocs"),
          name + ": " + e.getMessage());
    }
    // What a linker writes by default is read from the result: the tag itself, whatever the flags.
    Path relr = dir.resolve("relr");
    Files.createDirectories(relr);
    Files.writeString(relr.resolve("a.c"), "static int x; int *p = &x; int *q = &x; int get(void) { return *p + *q; }\n");
    io.github.kernelarchive.pipeline.Commands.run(List.of("cc", "-shared", "-fPIC", "-fuse-ld=bfd",
        "-Wl,-z,pack-relative-relocs", "a.c", "-o", "liba.so"), relr);
    GlibcFloor floor = new GlibcFloor(TARGET, cc(), toolchain.runner(), dir.resolve("work2"), ElfObject.hostMachine());
    BuildFailureException tagged = assertThrows(BuildFailureException.class,
        () -> floor.verify(relr.resolve("liba.so"), "liba.so"));
    assertTrue(tagged.getMessage().contains("DT_RELR"), tagged.getMessage());
  }

  private static Tool cc() throws Exception {
    return toolchain.compiler(Language.C).orElseThrow();
  }

  private static Path link(Path out, Path object, GlibcFloor floor, boolean staticRuntime) throws Exception {
    return linkResult(out, object, floor, staticRuntime).library();
  }

  private static SharedLibraryLinker.Result linkResult(Path out, Path object, GlibcFloor floor, boolean staticRuntime)
      throws Exception {
    Files.createDirectories(out);
    SharedLibraryLinker linker = new SharedLibraryLinker(toolchain.compiler(Language.CXX).orElseThrow(),
        toolchain.linker(), toolchain.runner(), out, new ContentHashes(), floor, staticRuntime);
    return linker.link(new LinkRequest("p", List.of(object), List.of(), true, List.of(), List.of("probe", "seed"),
        null, List.of(), null));
  }

  private static Path compile(Path dir, String resource, Language language) throws Exception {
    Path source = dir.resolve(resource);
    try (InputStream in = GlibcFloorTest.class.getResourceAsStream(resource)) {
      Files.write(source, in.readAllBytes());
    }
    Path object = dir.resolve(resource + ".o");
    List<String> command = new ArrayList<>(List.of(toolchain.compiler(language).orElseThrow().command(), "-O2",
        "-fPIC", "-c", source.toString(), "-o", object.toString()));
    if (language == Language.CXX) {
      command.add("-std=c++17");
    }
    run(command);
    return object;
  }

  private static Path linkProgram(Path dir, Path object) throws Exception {
    Path program = dir.resolve("loader");
    run(List.of(cc().command(), object.toString(), "-o", program.toString(), "-ldl"));
    return program;
  }

  /** The program linked again with what GlibcFloor adds to it. */
  private static Path redirected(Path dir, Path program) throws Exception {
    GlibcFloor floor = new GlibcFloor(TARGET, cc(), toolchain.runner(), dir.resolve("work"),
        ElfObject.hostMachine());
    Path old = dir.resolve("loader-2.17");
    Files.copy(program, old);
    String cc = cc().command();
    RedirectPlan plan = floor.hold(old, "loader", extra -> {
      List<String> command = new ArrayList<>(List.of(cc, dir.resolve("loader.c.o").toString()));
      command.addAll(extra);
      command.addAll(List.of("-o", old.toString(), "-ldl"));
      try {
        run(command);
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
    }, symbols -> List.of());
    assertTrue(plan.replaced().contains("__libc_start_main"), plan.toString());
    return old;
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), "finished: " + command);
    return process.exitValue() == 0 ? output : output + " (exit " + process.exitValue() + ")";
  }
}
