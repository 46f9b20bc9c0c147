package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.link.CudaRuntime;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.TargetPlatform;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CUDA library for linux-aarch64 from this x86_64 machine: nvcc with the cross compiler as its
 * host compiler, the CUDA runtime through the stub (compiled for aarch64, no library of the
 * platform needed). Under qemu, where no CUDA runtime exists, its host API gets the stub's clean
 * error instead of a crash. The static runtime, which this install lacks for aarch64, is refused
 * naming the stub.
 */
class CrossCudaTest {
  private static final String KERNEL = """
      #include <cuda_runtime.h>
      __global__ void fill(float *out) { out[threadIdx.x] = 2.0f * threadIdx.x; }
      extern "C" int k_devices(void) {
        int count = -1;
        cudaError_t status = cudaGetDeviceCount(&count);
        return status == cudaSuccess ? count : -100 - (int) status;
      }
      """;

  @TempDir Path dir;
  Path project;

  @BeforeEach
  void tools() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    Installed.assumeOnPath("aarch64-linux-gnu-g++", "a CUDA library for linux-aarch64");
    project = dir.resolve("p");
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/k.cu"), KERNEL);
  }

  private KernelBuildRequest request(CudaRuntime runtime) throws Exception {
    return KernelBuildRequest.builder(project, "k").host(project.resolve("host")).cudaArchs("90").cudaRuntime(runtime)
        .toolchain(ToolchainConfig.defaults().forPlatform(TargetPlatform.named("linux-aarch64"))).jobs(2)
        .exports("k_*").build();
  }

  @Test
  void theStubRuntimeBuildsForAarch64AndFailsCleanlyWithoutARuntime() throws Exception {
    BuildSummary summary = new KernelBuild(new RecordingLog(), System.getenv()).run(request(CudaRuntime.STUB));
    ElfObject library = ElfObject.read(summary.library());
    assertEquals(ElfObject.EM_AARCH64, library.machine());
    assertFalse(library.dynamicEntries().stream().anyMatch(e -> e.value().startsWith("libcudart")),
        "no NEEDED on a CUDA runtime: the stub loads one on first use");
    Installed.assumeOnPath("qemu-aarch64-static", "running it under qemu");
    Files.writeString(dir.resolve("main.c"), "#include <stdio.h>\nint k_devices(void);\n"
        + "int main(void) { printf(\"devices=%d\\n\", k_devices()); return 0; }\n");
    Path program = dir.resolve("main");
    Commands.run(List.of("aarch64-linux-gnu-gcc", "main.c", summary.library().toString(), "-Wl,-rpath,"
        + summary.library().getParent(), "-o", program.toString()), dir);
    Process run = new ProcessBuilder("qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", program.toString())
        .redirectErrorStream(true).start();
    String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, run.waitFor(), output);
    // cudaErrorInsufficientDriver (35), the stub's answer when no runtime loads, and its one line saying why.
    assertTrue(output.contains("devices=-135"), "the stub's error, not a count and not a crash: " + output);
    assertTrue(output.contains("kernel-archive stub: could not load any of libcudart.so."), output);
  }

  @Test
  void theStaticRuntimeForAarch64IsRefusedNamingTheStub() throws Exception {
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> new KernelBuild(new RecordingLog(), System.getenv()).run(request(CudaRuntime.STATIC)));
    assertTrue(e.getMessage().startsWith("kernel.cuda.runtime=static for linux-aarch64 links the CUDA runtime built"
        + " for it"), e.getMessage());
    assertTrue(e.getMessage().contains("set kernel.cuda.runtime=stub"), e.getMessage());
  }
}
