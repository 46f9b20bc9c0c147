package io.github.kernelarchive.stub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.deps.NativeDependency;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ElfSymbol;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.pipeline.RecordingLog;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stub's promise on its error path, with the real CUDA runtime's table: a library that calls
 * every function libcudart exports, reached through a stub whose runtime cannot be loaded, calls
 * each one (as a caller would: the error strings are printed) and the process survives. Pointer
 * results are NULL, the error-string functions return a message, the rest 35
 * (cudaErrorInsufficientDriver).
 */
class CudaRuntimeAbsentTest {
  private static final Path CUDA = Path.of("/usr/local/cuda");

  @TempDir Path dir;

  @Test
  void everyFunctionOfTheRuntimeReturnsSomethingSafeWhenItCannotBeLoaded() throws Exception {
    Path runtime = CUDA.resolve("lib64/libcudart.so");
    boolean present = Files.isRegularFile(runtime) && Files.isRegularFile(CUDA.resolve("include/cuda_runtime_api.h"));
    if (!present) {
      System.out.println("SKIPPED: no CUDA toolkit at " + CUDA + " (NVIDIA's CUDA toolkit, or Debian's"
          + " nvidia-cuda-toolkit with a link there); the stub's missing-runtime results are not tested with"
          + " libcudart's real table");
    }
    assumeTrue(present, "no CUDA toolkit at " + CUDA);
    TreeSet<String> functions = new TreeSet<>();
    for (ElfSymbol symbol : ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(runtime.toRealPath()))).dynamicSymbols()) {
      if (symbol.isDefined() && symbol.type() == ElfSymbol.TYPE_FUNCTION && symbol.isVisible() && symbol.version().startsWith("@@")) {
        functions.add(symbol.name());
      }
    }
    assertTrue(functions.size() > 200 && functions.contains("cudaGetErrorString"), functions.toString());

    // Every function is called with no arguments: without a runtime, no stub reads them.
    StringBuilder api = new StringBuilder("#include <stdio.h>\n#include <string.h>\n");
    functions.forEach(f -> api.append("extern long ").append(f).append("(void);\n"));
    api.append("static long (*const all[])(void) = {\n");
    functions.forEach(f -> api.append("  ").append(f).append(",\n"));
    api.append("};\nint use_all(void) {\n  int values = 0;\n");
    api.append("  for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) if (all[i]() == 35) values++;\n");
    api.append("  const char *(*string)(int) = (const char *(*)(int)) cudaGetErrorString;\n");
    api.append("  const char *(*name)(int) = (const char *(*)(int)) cudaGetErrorName;\n");
    api.append("  void **(*fatbin)(void *) = (void **(*)(void *)) __cudaRegisterFatBinary;\n");
    api.append("  printf(\"%s | %s | %zu | %p | %d\\n\", string(35), name(35), strlen(string(2)), (void *) fatbin(0), values);\n");
    api.append("  return 0;\n}\n");
    Path project = dir.resolve("project");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/api.c"), api);
    NativeDependency cudart = new NativeDependency("cudart", List.of("cudart"), List.of(),
        List.of("cuda_runtime_api.h", "crt/host_runtime.h"), false, List.of(), List.of(CUDA.resolve("include")),
        List.of(runtime.getParent()), new NativeDependency.Stub(List.of("libcudart.so.999"), 35L, List.of()));
    KernelBuildRequest request = KernelBuildRequest.builder(project, "use").host(project.resolve("src"))
        .cFlags("-O1", "-w").jobs(2).batchSize(400).exports("use_*").dependencies(cudart).build();
    new KernelBuild(new RecordingLog(), System.getenv()).run(request);

    Map<String, String> listed = Files.readAllLines(project.resolve("target/kernel/stubs-cudart.txt")).stream()
        .collect(Collectors.toMap(l -> l.split("\t")[0], l -> l.contains("\t") ? l.split("\t")[1] : ""));
    assertEquals(functions, new TreeSet<>(listed.keySet()));
    assertEquals("returns a message without the runtime", listed.get("cudaGetErrorString"));
    assertEquals("returns a message without the runtime", listed.get("cudaGetErrorName"));
    assertEquals("returns NULL without the runtime", listed.get("__cudaRegisterFatBinary"));
    assertEquals("", listed.get("cudaMalloc"));
    long pointers = listed.values().stream().filter(v -> !v.isEmpty()).count();

    String probe = "int use_all(void);\nint main(void) { return use_all(); }\n";
    Path exe = dir.resolve("probe");
    Commands.run(List.of("cc", "-o", exe.toString(), Files.writeString(dir.resolve("probe.c"), probe).toString(),
        "-L" + project.resolve("target/kernel"), "-luse", "-Wl,-rpath," + project.resolve("target/kernel")), dir);
    String output = Commands.run(List.of(exe.toString()), dir);
    String expected = "kernel-archive stub: could not load libcudart.so.999 (libcudart.so.999: cannot open shared"
        + " object file: No such file or directory)";
    assertTrue(output.contains(expected + " | " + expected + " | "), output);
    assertTrue(output.strip().endsWith(" | (nil) | " + (functions.size() - pointers)), output);
  }
}
