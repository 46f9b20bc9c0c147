package io.github.kernelarchive.deps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real stand-in for NVSHMEM (a host library whose SONAME is libnvshmem_host.so.3, and its
 * header) installed in each layout users have under a test prefix, found, linked by SONAME with an
 * rpath to where it was found, and run.
 */
class NativeDependenciesTest {
  @TempDir Path dir;
  private Path prefix;
  private Path project;
  private Path built;
  private final RecordingLog log = new RecordingLog();
  private static final NativeDependency NVSHMEM = new NativeDependency("nvshmem", List.of("nvshmem_host"), List.of(),
      List.of("nvshmem.h"), false, List.of("**/*nvshmem*"), List.of(), List.of(), null);

  @BeforeEach
  void buildTheStandIn() throws Exception {
    prefix = Files.createDirectories(dir.resolve("prefix"));
    built = Files.createDirectories(dir.resolve("standin"));
    Files.writeString(built.resolve("nvshmem.h"), "int nvshmem_my_pe(void);\n");
    Path source = Files.writeString(built.resolve("host.c"), "int nvshmem_my_pe(void) { return 7; }\n");
    run(List.of("cc", "-shared", "-fPIC", "-Wl,-soname,libnvshmem_host.so.3", "-o",
        built.resolve("libnvshmem_host.so.3").toString(), source.toString()));
    project = dir.resolve("project");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/use_nvshmem.c"), "#include <nvshmem.h>\n"
        + "__attribute__((visibility(\"default\"))) int use_pe(void) { return nvshmem_my_pe() * 6; }\n");
  }

  private String run(List<String> argv) throws Exception {
    return Commands.run(argv, dir);
  }

  /** Installs the header and the SONAME file (optionally the development symlink too). */
  private void install(Path include, Path lib, boolean devSymlink) throws Exception {
    Files.createDirectories(include);
    Files.createDirectories(lib);
    Files.copy(built.resolve("nvshmem.h"), include.resolve("nvshmem.h"));
    Files.copy(built.resolve("libnvshmem_host.so.3"), lib.resolve("libnvshmem_host.so.3"));
    if (devSymlink) {
      Files.createSymbolicLink(lib.resolve("libnvshmem_host.so"), Path.of("libnvshmem_host.so.3"));
    }
  }

  private KernelBuildRequest request(List<NativeDependency> dependencies) {
    return requestWith(dependencies).build();
  }

  private KernelBuildRequest.Builder requestWith(List<NativeDependency> dependencies) {
    return KernelBuildRequest.builder(project, "use").host(project.resolve("src")).jobs(2).batchSize(400)
        .exports("use_*").dependencies(new DependencySettings(dependencies, prefix, List.of(), List.of()));
  }

  /** Builds libuse.so against the dependency, checks NEEDED and rpath, and calls it from a program. */
  private void buildLinkAndRun(Map<String, String> environment, String expectedRule, Path expectedLibDir) throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(environment);
    new KernelBuild(log, env).run(request(List.of(NVSHMEM)));
    assertTrue(log.text().contains("Dependency nvshmem: found by " + expectedRule), log.text());
    Path library = project.resolve("target/kernel/libuse.so");
    String dynamic = run(List.of("readelf", "-d", library.toString()));
    assertTrue(dynamic.contains("Shared library: [libnvshmem_host.so.3]"), dynamic);
    assertTrue(dynamic.contains(expectedLibDir.toString()), "rpath to " + expectedLibDir + ":\n" + dynamic);
    Path program = Files.writeString(dir.resolve("main.c"),
        "#include <stdio.h>\nint use_pe(void);\nint main(void) { printf(\"%d\\n\", use_pe()); return 0; }\n");
    Path exe = dir.resolve("main");
    run(List.of("cc", "-o", exe.toString(), program.toString(), library.toString(),
        "-Wl,-rpath," + library.getParent()));
    assertEquals("42", run(List.of(exe.toString())).trim());
  }

  @Test
  void nameDir() throws Exception {
    Path home = prefix.resolve("opt/nvshmem");
    install(home.resolve("include"), home.resolve("lib"), true);
    buildLinkAndRun(Map.of("NVSHMEM_DIR", home.toString()), "NVSHMEM_DIR=" + home, home.resolve("lib"));
  }

  @Test
  void environmentPathListsWithLdflags() throws Exception {
    install(prefix.resolve("a/include"), prefix.resolve("b/lib"), false);
    buildLinkAndRun(Map.of("NVSHMEM_INCLUDE_PATH", "/nonexistent:" + prefix.resolve("a/include"),
        "NVSHMEM_LIBRARY_PATH", prefix.resolve("b/lib").toString(), "NVSHMEM_LDFLAGS", "-Wl,-z,now"),
        "NVSHMEM_INCLUDE_PATH/NVSHMEM_LIBRARY_PATH", prefix.resolve("b/lib"));
    assertTrue(run(List.of("readelf", "-d", project.resolve("target/kernel/libuse.so").toString())).contains("BIND_NOW"),
        "NVSHMEM_LDFLAGS reached the link");
  }

  @Test
  void pipWheelWithoutSymlinks() throws Exception {
    Path wheel = prefix.resolve("usr/lib/python3.11/site-packages/nvidia/nvshmem");
    install(wheel.resolve("include"), wheel.resolve("lib"), false);
    buildLinkAndRun(Map.of(), "pip wheel " + wheel, wheel.resolve("lib"));
  }

  @Test
  void rpmStyleDistroLayout() throws Exception {
    Installed.assumeCompiler(Language.CUDA); // the CUDA major comes from nvcc
    String major = CudaLibraries.major(new Toolchain(ToolchainConfig.defaults(), System.getenv())
        .compiler(Language.CUDA).orElseThrow());
    install(prefix.resolve("usr/include/nvshmem_" + major), prefix.resolve("usr/lib64/nvshmem/" + major), false);
    buildLinkAndRun(Map.of(), "distro " + prefix.resolve("usr/include/nvshmem_" + major),
        prefix.resolve("usr/lib64/nvshmem/" + major));
  }

  @Test
  void deviceLibraryJoinsTheDeviceLink() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    // The device half of the stand-in: relocatable device code in libnvshmem_device.a.
    Path device = Files.writeString(built.resolve("device.cu"), "__device__ int nvshmem_device_pe() { return 7; }\n");
    Path deviceObject = built.resolve("device.o");
    run(List.of("nvcc", "-c", "-rdc=true", "-gencode=arch=compute_80,code=sm_80", "-Xcompiler", "-fPIC", "-o",
        deviceObject.toString(), device.toString()));
    Path home = prefix.resolve("opt/nvshmem");
    install(home.resolve("include"), home.resolve("lib"), true);
    run(List.of("ar", "qc", home.resolve("lib/libnvshmem_device.a").toString(), deviceObject.toString()));
    Files.writeString(project.resolve("src/kernel_nvshmem.cu"), "extern __device__ int nvshmem_device_pe();\n"
        + "__global__ void pe(int *out) { *out = nvshmem_device_pe(); }\n"
        + "extern \"C\" __attribute__((visibility(\"default\"))) void use_launch(int *out) { pe<<<1, 1>>>(out); }\n");
    NativeDependency withDevice = new NativeDependency("nvshmem", List.of("nvshmem_host"), List.of("nvshmem_device"),
        List.of("nvshmem.h"), false, List.of(), List.of(), List.of(), null);
    KernelBuildRequest request = requestWith(List.of(withDevice)).cudaArchs("80").relocatableDeviceCode(true).build();
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("NVSHMEM_DIR", home.toString());
    new KernelBuild(log, env).run(request);
    assertTrue(log.text().contains("device [" + home.resolve("lib/libnvshmem_device.a") + "]"), log.text());
    assertTrue(log.text().contains("Device link: nvcc -dlink over 2 input(s)"), log.text());
    String exported = run(List.of("nm", "-D", "--defined-only", project.resolve("target/kernel/libuse.so").toString()));
    assertTrue(exported.contains(" use_launch") && exported.contains(" use_pe"), exported);
  }

  @Test
  void anOptionalMissingDependencyDropsExactlyItsSources() throws Exception {
    Files.writeString(project.resolve("src/plain.c"), "__attribute__((visibility(\"default\"))) int use_plain(void) { return 1; }\n");
    NativeDependency optional = new NativeDependency("nvshmem", List.of("nvshmem_host"), List.of(), List.of("nvshmem.h"),
        true, List.of("**/*nvshmem*"), List.of(), List.of(), null);
    new KernelBuild(log, System.getenv()).run(request(List.of(optional)));
    List<String> lines = log.lines().stream().filter(l -> l.contains("Dependency nvshmem")).toList();
    assertEquals(List.of("INFO Dependency nvshmem not found (optional): 1 source(s) that need it dropped: use_nvshmem.c"), lines);
    assertTrue(log.text().contains("Compile: 1 compiled"), log.text());
  }

  @Test
  void aRequiredMissingDependencyFailsListingEveryPlaceSearched() {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("NVSHMEM_DIR", prefix.resolve("nowhere").toString());
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> new KernelBuild(log, env).run(request(List.of(NVSHMEM))));
    assertTrue(e.getMessage().startsWith("Required dependency 'nvshmem' not found. Searched:"), e.getMessage());
    assertTrue(e.getMessage().contains("NVSHMEM_DIR=" + prefix.resolve("nowhere")), e.getMessage());
    assertTrue(e.getMessage().contains("multiarch " + prefix.resolve("usr")), e.getMessage());
  }

  @Test
  void headersWithoutLibrariesAndTheReverseDoNotCount() throws Exception {
    Path headersOnly = prefix.resolve("h");
    Files.createDirectories(headersOnly.resolve("include"));
    Files.copy(built.resolve("nvshmem.h"), headersOnly.resolve("include/nvshmem.h"));
    Files.createDirectories(headersOnly.resolve("lib"));
    DependencyResolver resolver = new DependencyResolver(Map.of("NVSHMEM_DIR", headersOnly.toString()), prefix, null, List.of(), null);
    DependencyResolver.Result result = resolver.resolve(NVSHMEM);
    assertTrue(result.resolved().isEmpty());
    assertTrue(result.searched().get(0).contains("missing library libnvshmem_host.so*"), result.searched().toString());

    Path librariesOnly = prefix.resolve("l");
    Files.createDirectories(librariesOnly.resolve("lib"));
    Files.copy(built.resolve("libnvshmem_host.so.3"), librariesOnly.resolve("lib/libnvshmem_host.so.3"));
    result = new DependencyResolver(Map.of("NVSHMEM_DIR", librariesOnly.toString()), prefix, null, List.of(), null)
        .resolve(NVSHMEM);
    assertTrue(result.resolved().isEmpty());
    assertTrue(result.searched().get(0).contains("missing header nvshmem.h"), result.searched().toString());
  }

  @Test
  void theCudaRuntimeFromNvidiasWheelsIsLinkedBySoname() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    Toolchain toolchain = new Toolchain(ToolchainConfig.defaults(), System.getenv());
    Path cudaRoot = CudaLibraries.root(toolchain.compiler(Language.CUDA).orElseThrow(), new ProcessRunner(Map.of()));
    org.junit.jupiter.api.Assumptions.assumeTrue(cudaRoot != null && Files.isDirectory(cudaRoot.resolve("dist-info")),
        "this CUDA is not assembled from NVIDIA's wheels");
    NativeDependency cudart = new NativeDependency("cudart", List.of("cudart"), List.of(), List.of("cuda_runtime_api.h"),
        false, List.of(), List.of(), List.of(), null);
    ResolvedDependency found = new DependencyResolver(Map.of(), prefix, null, List.of(), cudaRoot).resolve(cudart)
        .resolved().orElseThrow();
    assertEquals("CUDA wheel root " + cudaRoot, found.rule());
    Path program = Files.writeString(dir.resolve("rt.c"), "#include <cuda_runtime_api.h>\n"
        + "int main(void) { int v = 0; cudaRuntimeGetVersion(&v); return v > 0 ? 0 : 1; }\n");
    List<String> argv = new ArrayList<>(List.of("cc", "-o", dir.resolve("rt").toString(), program.toString(),
        "-I" + found.includeDirectories().get(0)));
    argv.addAll(found.hostLinkFlags());
    run(argv);
    String dynamic = run(List.of("readelf", "-d", dir.resolve("rt").toString()));
    assertTrue(dynamic.matches("(?s).*Shared library: \\[libcudart\\.so\\.\\d+\\].*"), dynamic);
    run(List.of(dir.resolve("rt").toString()));
  }
}
