package io.github.kernelarchive.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.wheelfile.WheelVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.codehaus.plexus.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Vendoring as auditwheel repair does it, checked by loading the library from the unpacked wheel alone. */
class WheelBuilderTest {
  @TempDir Path dir;

  @Test
  void aVendoredLibraryTravelsInTheWheelUnderItsHashedNameAndIsFoundFromThere() throws Exception {
    Installed.assumeCompiler(Language.C);
    Installed.assumeOnPath("patchelf", "vendoring needed libraries into a wheel");
    Path vendor = NativeLibraries.build(dir.resolve("opt/lib"), "libvendor.so.1", "int vendor(void) { return 5; }\n");
    Path library = NativeLibraries.build(dir.resolve("target/kernel"), "libk.so",
        "int vendor(void);\nint k(int x) { return vendor() + x; }\n",
        "-L" + vendor.getParent(), "-l:libvendor.so.1", "-Wl,-rpath," + vendor.getParent());
    WheelRequest request = new WheelRequest(dir, library, dir.resolve("target"), dir.resolve("target/kernel/wheel"), "k",
        "1.0", "k", null, dir.resolve("src/main/python"), null,
        new WheelRequest.Metadata(null, null, List.of(), null, List.of(), Map.of()), List.of(),
        List.of("libvendor.so.1"), false, null, null, FileTime.fromMillis(0), "test");

    WheelBuilder.Result result = new WheelBuilder(new ProcessRunner(Map.of())).build(request);

    String hash = io.github.kernelarchive.util.Hashing.ofFile(vendor).substring(0, 8);
    assertEquals(List.of("k.libs/libvendor-" + hash + ".so.1"), result.vendored());
    assertEquals(List.of(), result.dependencies(), "a vendored library is no wheel dependency");
    Path site = dir.resolve("site");
    for (Map.Entry<String, byte[]> entry : WheelVerifier.read(result.wheel()).entrySet()) {
      Path file = site.resolve(entry.getKey());
      Files.createDirectories(file.getParent());
      Files.write(file, entry.getValue());
    }
    ElfObject installed = NativeLibraries.parse(site.resolve("k/libk.so"));
    List<String> dynamic = installed.dynamicEntries().stream().map(e -> e.tag() + " " + e.value()).toList();
    assertTrue(dynamic.contains(ElfObject.DT_NEEDED + " libvendor-" + hash + ".so.1"), dynamic.toString());
    assertTrue(dynamic.contains(ElfObject.DT_RPATH + " $ORIGIN/../k.libs"), dynamic.toString());
    assertFalse(dynamic.toString().contains(dir.toString()), "no folder of this machine: " + dynamic);
    ElfObject copy = NativeLibraries.parse(site.resolve("k.libs/libvendor-" + hash + ".so.1"));
    assertTrue(copy.dynamicEntries().contains(new ElfObject.DynamicEntry(ElfObject.DT_SONAME, "libvendor-" + hash + ".so.1")));

    FileUtils.deleteDirectory(dir.resolve("opt").toFile());
    assertEquals("7", Commands.callLibrary(site.resolve("k/libk.so"), "k", 2, dir));
    // The build tree's library is untouched: it still reaches the original by its absolute RPATH.
    assertTrue(NativeLibraries.parse(library).dynamicEntries().stream().anyMatch(e -> e.value().equals("libvendor.so.1")));
  }

  @Test
  void aLibraryNeededByItsPathIsRefused() throws Exception {
    Installed.assumeCompiler(Language.C);
    Path abs = Files.createDirectories(dir.resolve("abs/path"));
    Files.writeString(abs.resolve("noso.c"), "int noso(void) { return 1; }\n");
    Commands.run(List.of("cc", "-shared", "-fPIC", "noso.c", "-o", "libnoso.so"), abs); // no SONAME
    Path library = NativeLibraries.build(dir.resolve("target/kernel"), "libk.so", "int noso(void);\nint k(void) {"
        + " return noso(); }\n", abs.resolve("libnoso.so").toString());
    WheelRequest request = request(library, "k", "k");
    io.github.kernelarchive.common.BuildFailureException e = org.junit.jupiter.api.Assertions.assertThrows(
        io.github.kernelarchive.common.BuildFailureException.class,
        () -> new WheelBuilder(new ProcessRunner(Map.of())).build(request));
    assertTrue(e.getMessage().startsWith("libk.so NEEDs " + abs.resolve("libnoso.so") + " by its path: that library"
        + " has no SONAME"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("target")) && Files.list(dir.resolve("target")).anyMatch(p ->
        p.toString().endsWith(".whl")), "no wheel written");
  }

  /** A plain wheel of {@code library} (distribution {@code name}) with the library in {@code importPackage}. */
  private WheelRequest request(Path library, String name, String importPackage) {
    return new WheelRequest(dir, library, dir.resolve("target"), dir.resolve("target/kernel/wheel"), name, "1.0",
        importPackage, null, dir.resolve("src/main/python"), null,
        new WheelRequest.Metadata(null, null, List.of(), null, List.of(), Map.of()), List.of(), List.of(), false, null,
        null, FileTime.fromMillis(0), "test");
  }

  private WheelBuilder.Result buildWith(String importPackage) throws Exception {
    Path library = NativeLibraries.build(dir.resolve("target/kernel"), "libvecops.so", "int dot(void) { return 32; }\n");
    return new WheelBuilder(new ProcessRunner(Map.of())).build(request(library, "vecops", importPackage));
  }

  /** The failure of a wheel of {@code importPackage}, which must be refused. */
  private io.github.kernelarchive.common.BuildFailureException refused(String importPackage) {
    return org.junit.jupiter.api.Assertions.assertThrows(io.github.kernelarchive.common.BuildFailureException.class,
        () -> buildWith(importPackage));
  }

  @Test
  void aPackageTheSourcesDoNotHoldIsRefusedNamingBoth() throws Exception {
    Installed.assumeCompiler(Language.C);
    Files.createDirectories(dir.resolve("src/main/python/vecops"));
    Files.writeString(dir.resolve("src/main/python/vecops/__init__.py"), "");
    io.github.kernelarchive.common.BuildFailureException e = refused("vec_ops");
    assertTrue(e.getMessage().startsWith("<wheel><package> is 'vec_ops', so the library goes into vec_ops/ in the"
        + " wheel, but " + dir.resolve("src/main/python") + " holds the package vecops and no vec_ops/"), e.getMessage());
    assertTrue(e.getMessage().endsWith("Set <wheel><package> to vecops, or rename the folder."), e.getMessage());
    assertTrue(buildWith("vecops").wheel().toString().endsWith(".whl"), "the right package builds");
  }

  @Test
  void aTopLevelInitIsRefused() throws Exception {
    Installed.assumeCompiler(Language.C);
    Files.createDirectories(dir.resolve("src/main/python"));
    Files.writeString(dir.resolve("src/main/python/__init__.py"), "");
    io.github.kernelarchive.common.BuildFailureException e = refused("vecops");
    assertTrue(e.getMessage().startsWith(dir.resolve("src/main/python/__init__.py") + " is at the top of the Python"
        + " sources"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("target/vecops-1.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl")));
  }

  @Test
  void theGeneratedLoaderOpensTheLibraryForATwoLineWrapper() throws Exception {
    Installed.assumeCompiler(Language.C);
    Path python = Path.of("/usr/bin/python3");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(python), "no /usr/bin/python3");
    Files.createDirectories(dir.resolve("src/main/python/vecops"));
    Files.writeString(dir.resolve("src/main/python/vecops/__init__.py"), "from ._native import lib\ndot = lib.dot\n");
    WheelBuilder.Result result = buildWith("vecops");
    Path site = dir.resolve("site");
    for (Map.Entry<String, byte[]> entry : WheelVerifier.read(result.wheel()).entrySet()) {
      Path file = site.resolve(entry.getKey());
      Files.createDirectories(file.getParent());
      Files.write(file, entry.getValue());
    }
    ProcessBuilder builder = new ProcessBuilder(python.toString(), "-c", "import vecops; print(vecops.dot())")
        .directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().put("PYTHONPATH", site.toString());
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes()).trim();
    assertEquals(0, process.waitFor(), output);
    assertEquals("32", output);

    // A library that cannot load says which wheel and file, as an ImportError.
    Files.write(site.resolve("vecops/libvecops.so"), new byte[] {1, 2, 3});
    builder.command(python.toString(), "-c", "import vecops");
    process = builder.start();
    output = new String(process.getInputStream().readAllBytes());
    assertEquals(1, process.waitFor(), output);
    assertTrue(output.contains("ImportError: vecops: could not load " + site.resolve("vecops/libvecops.so")), output);
  }

  @Test
  void aSourceNamedLikeTheLoaderIsRefused() throws Exception {
    Installed.assumeCompiler(Language.C);
    Files.createDirectories(dir.resolve("src/main/python/vecops"));
    Files.writeString(dir.resolve("src/main/python/vecops/__init__.py"), "");
    Files.writeString(dir.resolve("src/main/python/vecops/_native.py"), "");
    io.github.kernelarchive.common.BuildFailureException e = refused("vecops");
    assertTrue(e.getMessage().startsWith(dir.resolve("src/main/python/vecops/_native.py") + " has the name of the"
        + " loader"), e.getMessage());
  }
}
