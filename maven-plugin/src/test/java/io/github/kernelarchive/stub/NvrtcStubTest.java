package io.github.kernelarchive.stub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.deps.NativeDependency;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.pipeline.RecordingLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A library that compiles a CUDA kernel to PTX through NVRTC, reached by a stub. Built against a
 * stand-in with the exported functions of CUDA 13.0's libnvrtc.so.13 (names read off the real
 * library, in the test resources), since no NVRTC can be installed on this machine. Here, where
 * none is installed, it must return NVRTC's status for a missing runtime with one stderr line; on
 * a GPU machine the same library compiles the kernel with the real NVRTC
 * (native/gpu-check/nvrtc-stub.sh, results in docs/gpu-validation.md).
 */
class NvrtcStubTest {
  /** The library's one function: PTX size of a small kernel, or minus the NVRTC status that failed. */
  static final String USE_NVRTC = String.join("\n",
      "#include <stddef.h>",
      "typedef int nvrtcResult; /* NVRTC's status enum: 0 is success */",
      "typedef struct _nvrtcProgram *nvrtcProgram;",
      "nvrtcResult nvrtcCreateProgram(nvrtcProgram *, const char *, const char *, int, const char *const *,",
      "                               const char *const *);",
      "nvrtcResult nvrtcCompileProgram(nvrtcProgram, int, const char *const *);",
      "nvrtcResult nvrtcGetPTXSize(nvrtcProgram, size_t *);",
      "nvrtcResult nvrtcDestroyProgram(nvrtcProgram *);",
      "static const char kernel[] = \"extern \\\"C\\\" __global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }\";",
      "long nvrtc_ptx_size(void) {",
      "  nvrtcProgram program = 0;",
      "  nvrtcResult status = nvrtcCreateProgram(&program, kernel, \"twice.cu\", 0, 0, 0);",
      "  if (status != 0) return -status;",
      "  const char *options[] = {\"--gpu-architecture=compute_90\"};",
      "  status = nvrtcCompileProgram(program, 1, options);",
      "  size_t size = 0;",
      "  if (status == 0) status = nvrtcGetPTXSize(program, &size);",
      "  nvrtcDestroyProgram(&program);",
      "  return status != 0 ? -status : (long) size;",
      "}", "");
  /** Loads the library, calls it, prints which libnvrtc the process mapped, then the result. */
  static final String PROBE = String.join("\n",
      "#include <dlfcn.h>", "#include <stdio.h>", "#include <string.h>",
      "int main(int argc, char **argv) {",
      "  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);",
      "  if (!lib) { fprintf(stderr, \"%s\\n\", dlerror()); return 2; }",
      "  long (*size)(void) = (long (*)(void)) dlsym(lib, \"nvrtc_ptx_size\");",
      "  long result = size();",
      "  char line[4096], last[4096] = \"\";",
      "  FILE *maps = fopen(\"/proc/self/maps\", \"r\");",
      "  while (maps && fgets(line, sizeof line, maps)) {",
      "    char *path = strchr(line, '/');",
      "    if (path && strstr(path, \"libnvrtc.so\") && strcmp(path, last)) { printf(\"mapped %s\", path); strcpy(last, path); }",
      "  }",
      "  printf(\"ptx size %ld\\n\", result);",
      "  return 0;",
      "}", "");

  @TempDir Path dir;

  /** A library exporting exactly the functions real libnvrtc.so.13 exports, with its SONAME: for the build only. */
  private Path standIn() throws Exception {
    List<String> functions = new String(getClass().getResourceAsStream("libnvrtc.so.13.functions").readAllBytes(),
        StandardCharsets.UTF_8).lines().toList();
    List<String> body = new ArrayList<>();
    functions.forEach(f -> body.add("int " + f + "(void) { return 11; }"));
    Path source = Files.write(dir.resolve("standin.c"), body);
    Path lib = Files.createDirectories(dir.resolve("nvrtc-standin"));
    Commands.run(List.of("cc", "-shared", "-fPIC", "-Wl,-soname,libnvrtc.so.13", "-o",
        lib.resolve("libnvrtc.so.13").toString(), source.toString()), dir);
    return lib;
  }

  @Test
  void withoutNvrtcInstalledEveryCallReturnsItsStatusForAMissingRuntime() throws Exception {
    Path project = dir.resolve("project");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/use.c"), USE_NVRTC);
    NativeDependency nvrtc = new NativeDependency("nvrtc", List.of("nvrtc"), List.of(), List.of(), false, List.of(),
        List.of(dir), List.of(standIn()), new NativeDependency.Stub(List.of("libnvrtc.so.13", "libnvrtc.so.12"), null,
            List.of()));
    KernelBuildRequest request = KernelBuildRequest.builder(project, "use_nvrtc").host(project.resolve("src"))
        .cFlags("-O1").jobs(2).batchSize(400).exports("nvrtc_*").dependencies(nvrtc).build();
    RecordingLog log = new RecordingLog();
    new KernelBuild(log, System.getenv()).run(request);
    Path library = project.resolve("target/kernel/libuse_nvrtc.so");
    String export = System.getenv("NVRTC_STUB_OUT"); // for the GPU machine: native/gpu-check/nvrtc-stub.sh
    if (export != null) {
      Files.createDirectories(Path.of(export));
      Files.copy(library, Path.of(export, library.getFileName().toString()),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.writeString(Path.of(export, "probe.c"), PROBE);
    }
    assertEquals("nvrtcCompileProgram\nnvrtcCreateProgram\nnvrtcDestroyProgram\nnvrtcGetPTXSize\n",
        Files.readString(library.resolveSibling("stubs-nvrtc.txt")));
    assertFalse(Commands.run(List.of("readelf", "-d", library.toString()), dir).contains("libnvrtc"));

    Path probe = dir.resolve("probe");
    Commands.run(List.of("cc", "-o", probe.toString(), Files.writeString(dir.resolve("probe.c"), PROBE).toString(),
        "-ldl"), dir);
    boolean installed = Commands.run(List.of("sh", "-c", "ldconfig -p | grep -c 'libnvrtc.so.1[23] ' || true"), dir)
        .strip().equals("0") == false;
    if (installed) {
      System.out.println("SKIPPED the missing-runtime check: an NVRTC is installed here");
      return;
    }
    ProcessBuilder run = new ProcessBuilder(probe.toString(), library.toString()).redirectErrorStream(true);
    run.environment().remove("LD_LIBRARY_PATH");
    Process process = run.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, process.waitFor(), output);
    assertTrue(output.endsWith("ptx size -11\n"), "NVRTC_ERROR_INTERNAL_ERROR (11), the nvrtc default:\n" + output);
    assertEquals(1, output.lines().filter(l -> l.startsWith("kernel-archive stub: could not load any of"
        + " libnvrtc.so.13 libnvrtc.so.12")).count(), output);
  }
}
