package io.github.kernelarchive.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Libraries a real link recorded as NEEDED, matched to the wheels that provide them. */
class WheelDependenciesTest {
  @TempDir Path dir;

  @BeforeEach
  void compiler() throws Exception {
    Installed.assumeCompiler(Language.C);
  }

  /** A library linked against {@code provider} by SONAME, with an RPATH to its folder, as the deps stage links. */
  private Path linkedAgainst(Path provider, String function) throws Exception {
    return NativeLibraries.build(dir.resolve("out"), "libk.so",
        "int " + function + "(void);\nint k(void) { return " + function + "(); }\n",
        "-L" + provider.getParent(), "-l:" + provider.getFileName(), "-Wl,-rpath," + provider.getParent());
  }

  @Test
  void nvshmemFromAnRpmLayoutMapsToItsWheelWithTheCudaMajorOfItsFolder() throws Exception {
    Path nvshmem = NativeLibraries.build(dir.resolve("usr/lib64/nvshmem/13"), "libnvshmem_host.so.3",
        "int nvshmem_my_pe(void) { return 0; }\n");
    Path library = linkedAgainst(nvshmem, "nvshmem_my_pe");
    List<WheelDependency> found = WheelDependencies.resolve(library, NativeLibraries.parse(library), List.of(), List.of());
    assertEquals(1, found.size());
    WheelDependency d = found.get(0);
    assertEquals("libnvshmem_host.so.3", d.library());
    assertEquals("nvidia-nvshmem-cu13>=3,<4", d.requiresDist());
    assertEquals("nvidia/nvshmem/lib", d.folder());
  }

  @Test
  void aLibraryInsideAnInstalledWheelIsThatWheelsByItsRecordWithinItsMajor() throws Exception {
    Path site = dir.resolve("venv/lib/python3.11/site-packages");
    Path runtime = NativeLibraries.build(site.resolve("nvidia/cu13/lib"), "libcudart.so.13",
        "int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }\n");
    Path distInfo = Files.createDirectories(site.resolve("nvidia_cuda_runtime-13.0.96.dist-info"));
    Files.writeString(distInfo.resolve("METADATA"), "Metadata-Version: 2.1\nName: nvidia-cuda-runtime\nVersion: 13.0.96\n");
    Files.writeString(distInfo.resolve("RECORD"), "nvidia/cu13/lib/libcudart.so.13,sha256=x,1\n");
    Path library = NativeLibraries.build(dir.resolve("out"), "libk.so",
        "int cudaRuntimeGetVersion(int *);\nint k(void) { int v; cudaRuntimeGetVersion(&v); return v; }\n",
        "-L" + runtime.getParent(), "-l:libcudart.so.13", "-Wl,-rpath," + runtime.getParent());
    WheelDependency d = WheelDependencies.resolve(library, NativeLibraries.parse(library), List.of(), List.of()).get(0);
    assertEquals("nvidia-cuda-runtime>=13.0.96,<14", d.requiresDist());
    assertEquals("nvidia/cu13/lib", d.folder());

    // The pom may name another distribution or range; what it leaves out is still found.
    WheelDependency declared = WheelDependencies.resolve(library, NativeLibraries.parse(library),
        List.of(new DeclaredDependency("libcudart.so.13", "nvidia-cuda-runtime-cu13", ">=13.0", null)), List.of()).get(0);
    assertEquals("nvidia-cuda-runtime-cu13>=13.0", declared.requiresDist());
    assertEquals("nvidia/cu13/lib", declared.folder());
  }

  @Test
  void aDeclaredDependencyWhoseLibraryIsNotNeededFailsNamingIt() throws Exception {
    Path library = NativeLibraries.build(dir.resolve("out"), "libk.so", "int k(void) { return 1; }\n");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> WheelDependencies.resolve(library,
        NativeLibraries.parse(library), List.of(new DeclaredDependency("libnvshmem_host.so.3", null, null, null)),
        List.of()));
    assertTrue(e.getMessage().startsWith("<wheel><dependencies> declares libnvshmem_host.so.3, but libk.so does not"
        + " need it"), e.getMessage());
  }

  @Test
  void aDeclaredDependencyWhoseLibraryIsInNoWheelAndNoKnownLayoutFailsNamingWhatToAdd() throws Exception {
    Path other = NativeLibraries.build(dir.resolve("opt/vendor/lib"), "libvendor.so.1", "int vendor(void) { return 1; }\n");
    Path library = linkedAgainst(other, "vendor");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> WheelDependencies.resolve(library,
        NativeLibraries.parse(library), List.of(new DeclaredDependency("libvendor.so.1", null, null, null)), List.of()));
    assertTrue(e.getMessage().contains("declares libvendor.so.1, but the library the link used was found in no"
        + " installed wheel"), e.getMessage());
    assertTrue(e.getMessage().contains("give its <distribution> and <folder>"), e.getMessage());
  }
}
