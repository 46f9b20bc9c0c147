package io.github.kernelarchive.nativejar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.runtime.KernelLibrary;
import io.github.kernelarchive.scan.Language;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar goal's stage with real libraries, read back by kernel-archive-runtime, which loads them. */
class NativeJarBuilderTest {
  @Test
  void carriesTheLibraryWhatItNeedsAndAnIndexTheRuntimeLoads(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Path out = Files.createDirectories(dir.resolve("kernel"));
    Files.writeString(dir.resolve("dep.c"), "int dep_value(void) { return 41; }\n");
    Files.writeString(dir.resolve("main.c"), "int dep_value(void);\nint main_value(void) { return dep_value() + 1; }\n");
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libdep.so", "dep.c", "-o", out.resolve("libdep.so").toString());
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libmain.so", "main.c", "-L" + out, "-l:libdep.so", "-Wl,-rpath,$ORIGIN",
        "-o", out.resolve("libmain.so").toString());
    Files.writeString(out.resolve("stray.so"), "not needed: stays out");
    Path headers = Files.createDirectories(dir.resolve("include/sub"));
    Files.writeString(headers.resolve("main.h"), "int main_value(void);\n");
    NativeJarRequest request = new NativeJarRequest(dir, out.resolve("libmain.so"), "main", "linux-x86_64",
        dir.resolve("include"), List.of("main_*"), "none", "", dir.resolve("a/main.jar"),
        FileTime.fromMillis(1_700_000_000_000L), "test");
    NativeJarBuilder.Result result = NativeJarBuilder.build(request);
    assertEquals(List.of("libdep.so", "libmain.so"), result.loadOrder());

    List<String> names = new ArrayList<>();
    String index;
    try (ZipFile zip = new ZipFile(result.jar().toFile())) {
      Collections.list(zip.entries()).forEach(e -> names.add(e.getName()));
      try (InputStream in = zip.getInputStream(zip.getEntry("META-INF/native/linux-x86_64/main.index"))) {
        index = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      ZipEntry library = zip.getEntry("META-INF/native/linux-x86_64/libmain.so");
      assertEquals(1_700_000_000_000L, library.getLastModifiedTime().toMillis());
    }
    assertEquals(List.of("META-INF/MANIFEST.MF", "META-INF/native/include/sub/main.h",
        "META-INF/native/linux-x86_64/libdep.so", "META-INF/native/linux-x86_64/libmain.so",
        "META-INF/native/linux-x86_64/main.index", "META-INF/native/main.platforms"), names);
    assertTrue(index.contains("load=libdep.so libmain.so\n"), index);
    assertTrue(index.contains("soname.libdep.so=libdep.so\n") && index.contains("exports=main_*\n"), index);
    assertTrue(index.contains("sha256.libmain.so=" + io.github.kernelarchive.util.Hashing.ofFile(
        out.resolve("libmain.so")) + "\n"), index);

    // The same inputs, another place: the same bytes.
    NativeJarBuilder.build(new NativeJarRequest(dir, request.library(), "main", "linux-x86_64", request.headers(),
        request.exports(), "none", "", dir.resolve("b/main.jar"), request.time(), "test"));
    assertArrayEquals(Files.readAllBytes(dir.resolve("a/main.jar")), Files.readAllBytes(dir.resolve("b/main.jar")));

    // What the runtime makes of it: dependencies first, the library last, both loaded.
    String cache = System.getProperty(KernelLibrary.CACHE_PROPERTY);
    System.setProperty(KernelLibrary.CACHE_PROPERTY, dir.resolve("cache").toString());
    try (URLClassLoader loader = new URLClassLoader(new URL[] {result.jar().toUri().toURL()}, null)) {
      List<String> loaded = new ArrayList<>();
      KernelLibrary.Loaded library = KernelLibrary.load("main", loader, path -> {
        loaded.add(Path.of(path).getFileName().toString());
        System.load(path);
      });
      assertEquals(List.of("libdep.so", "libmain.so"), loaded);
      assertEquals("libmain.so", library.library().getFileName().toString());
      assertTrue(library.folder().startsWith(dir.resolve("cache")), library.folder().toString());
    } finally {
      if (cache == null) {
        System.clearProperty(KernelLibrary.CACHE_PROPERTY);
      } else {
        System.setProperty(KernelLibrary.CACHE_PROPERTY, cache);
      }
    }
  }

  @Test
  void platformJarsOfACiMatrixMergeIntoOneTheRuntimeChoosesFrom(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    boolean cross = java.util.Arrays.stream(System.getenv("PATH").split(":"))
        .anyMatch(d -> Files.isExecutable(Path.of(d, "aarch64-linux-gnu-gcc")));
    if (!cross) {
      System.out.println("SKIPPED: NativeJarBuilderTest's merge: no aarch64-linux-gnu-gcc (apt-get install"
          + " gcc-aarch64-linux-gnu) to build the second platform's library with");
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(cross);
    Files.writeString(dir.resolve("m.c"), "int m_value(void) { return 7; }\n");
    Path headers = Files.createDirectories(dir.resolve("include"));
    Files.writeString(headers.resolve("m.h"), "int m_value(void);\n");
    List<Path> jars = new ArrayList<>();
    for (String[] platform : new String[][] {{"linux-x86_64", "cc"}, {"linux-aarch64", "aarch64-linux-gnu-gcc"}}) {
      Path out = Files.createDirectories(dir.resolve(platform[0]));
      run(dir, platform[1], "-shared", "-fPIC", "-Wl,-soname,libm1.so", "m.c", "-o", out.resolve("libm1.so").toString());
      jars.add(NativeJarBuilder.build(new NativeJarRequest(dir, out.resolve("libm1.so"), "m1", platform[0], headers,
          List.of("m_*"), "none", "", dir.resolve(platform[0] + ".jar"), FileTime.fromMillis(0), "test")).jar());
    }
    Path merged = dir.resolve("merged.jar");
    NativeJarMerger.Result result = NativeJarMerger.merge(jars, "m1", merged, FileTime.fromMillis(0), "test");
    assertEquals(List.of("linux-aarch64", "linux-x86_64"), result.platforms());
    List<String> names = new ArrayList<>();
    try (ZipFile zip = new ZipFile(merged.toFile())) {
      Collections.list(zip.entries()).forEach(e -> names.add(e.getName()));
      try (InputStream in = zip.getInputStream(zip.getEntry("META-INF/native/m1.platforms"))) {
        assertEquals("linux-aarch64\nlinux-x86_64\n", new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    assertTrue(names.containsAll(List.of("META-INF/native/linux-aarch64/libm1.so", "META-INF/native/linux-x86_64/libm1.so",
        "META-INF/native/linux-aarch64/m1.index", "META-INF/native/linux-x86_64/m1.index",
        "META-INF/native/include/m.h")), names.toString());
    String cache = System.getProperty(KernelLibrary.CACHE_PROPERTY);
    System.setProperty(KernelLibrary.CACHE_PROPERTY, dir.resolve("cache").toString());
    try (URLClassLoader loader = new URLClassLoader(new URL[] {merged.toUri().toURL()}, null)) {
      KernelLibrary.Loaded loaded = KernelLibrary.load("m1", loader, System::load);
      assertEquals("linux-x86_64", loaded.index().platform(), "this machine's build, from the merged jar");
    } finally {
      if (cache == null) {
        System.clearProperty(KernelLibrary.CACHE_PROPERTY);
      } else {
        System.setProperty(KernelLibrary.CACHE_PROPERTY, cache);
      }
    }
    // The same platform twice is refused, naming both jars.
    io.github.kernelarchive.common.BuildFailureException twice = org.junit.jupiter.api.Assertions.assertThrows(
        io.github.kernelarchive.common.BuildFailureException.class,
        () -> NativeJarMerger.merge(List.of(jars.get(0), jars.get(0)), "m1", dir.resolve("x.jar"), FileTime.fromMillis(0),
            "test"));
    assertTrue(twice.getMessage().contains("Two jars hold libm1.so for linux-x86_64"), twice.getMessage());
  }

  @Test
  void aLibraryNeededByItsPathOrAFolderOfThisMachineIsRefused(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Path out = Files.createDirectories(dir.resolve("kernel"));
    Path abs = Files.createDirectories(dir.resolve("abs/path"));
    Files.writeString(dir.resolve("noso.c"), "int noso(void) { return 1; }\n");
    Files.writeString(dir.resolve("main.c"), "int noso(void);\nint main_value(void) { return noso(); }\n");
    cc(dir, "-shared", "-fPIC", "noso.c", "-o", abs.resolve("libnoso.so").toString()); // no SONAME
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libmain.so", "main.c", abs.resolve("libnoso.so").toString(),
        "-o", out.resolve("libmain.so").toString());
    NativeJarRequest request = new NativeJarRequest(dir, out.resolve("libmain.so"), "main", "linux-x86_64", null,
        List.of("main_*"), "none", "", dir.resolve("main.jar"), FileTime.fromMillis(0), "test");
    BuildFailureException needed = assertThrows(BuildFailureException.class, () -> NativeJarBuilder.build(request));
    assertEquals("libmain.so NEEDs " + abs.resolve("libnoso.so") + " by its path: that library has no SONAME, so the"
        + " link recorded where it lies on this machine, and a jar cannot ship a path of this machine. Give it a SONAME"
        + " (link it with -Wl,-soname,<name>), vendor it (copy it beside libmain.so and link it by name), or declare it"
        + " as a <dependency>.", needed.getMessage());
    assertFalse(Files.exists(dir.resolve("main.jar")), "no jar written");

    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libnoso.so", "noso.c", "-o", abs.resolve("libnoso.so").toString());
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libmain.so", "main.c", "-L" + abs, "-lnoso", "-Wl,-rpath,$ORIGIN:" + abs,
        "-o", out.resolve("libmain.so").toString());
    BuildFailureException rpath = assertThrows(BuildFailureException.class, () -> NativeJarBuilder.build(request));
    assertTrue(rpath.getMessage().startsWith("libmain.so has RUNPATH entry '" + abs + "', a folder outside the jar's:"),
        rpath.getMessage());
    assertFalse(Files.exists(dir.resolve("main.jar")), "no jar written");
  }

  @Test
  void withAGlibcTargetTheIndexStatesTheTargetAsTheFloor(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Path out = Files.createDirectories(dir.resolve("kernel"));
    Files.writeString(dir.resolve("plain.c"), "int plain_value(int x) { return x + 1; }\n");
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libplain.so", "plain.c", "-o", out.resolve("libplain.so").toString());
    NativeJarBuilder.Result none = NativeJarBuilder.build(new NativeJarRequest(dir, out.resolve("libplain.so"), "plain",
        "linux-x86_64", null, List.of("plain_*"), "none", "", dir.resolve("a.jar"), FileTime.fromMillis(0), "test"));
    NativeJarBuilder.Result held = NativeJarBuilder.build(new NativeJarRequest(dir, out.resolve("libplain.so"), "plain",
        "linux-x86_64", null, List.of("plain_*"), "none", "2.17", dir.resolve("b.jar"), FileTime.fromMillis(0), "test"));
    assertTrue(none.glibc().isEmpty() || none.glibc().startsWith("2.2"), "the content's own: " + none.glibc());
    assertEquals("2.17", held.glibc(), "checked against 2.17, nothing older");
    try (ZipFile zip = new ZipFile(dir.resolve("b.jar").toFile());
        InputStream in = zip.getInputStream(zip.getEntry("META-INF/native/linux-x86_64/plain.index"))) {
      assertTrue(new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("glibc=2.17\n"));
    }
  }

  private static void cc(Path dir, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of("cc"));
    command.addAll(List.of(arguments));
    run(dir, command.toArray(String[]::new));
  }

  private static void run(Path dir, String... command) throws Exception {
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, List.of(command) + ": " + output);
  }
}
