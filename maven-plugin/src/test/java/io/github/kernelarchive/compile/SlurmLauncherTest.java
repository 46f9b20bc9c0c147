package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.kernelarchive.scan.Language;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What srun runs for a job. (The cluster itself, its failures and the fallback are shown against a
 * real Slurm cluster by pipeline's SlurmClusterTest.)
 */
class SlurmLauncherTest {
  private static final List<String> TWO_ARCHS = List.of("/usr/local/cuda/bin/nvcc", "-c", "-gencode",
      "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=sm_90a", "-o", "k.cu.o", "k.cu");

  @Test
  void aMultiArchNvccCompileUsesTheCpusItHoldsAsThreads() {
    assertEquals(List.of("/usr/local/cuda/bin/nvcc", "--threads", "2", "-c", "-gencode", "arch=compute_80,code=sm_80",
        "-gencode", "arch=compute_90a,code=sm_90a", "-o", "k.cu.o", "k.cu"),
        SlurmLauncher.withThreads(TWO_ARCHS, Language.CUDA, 4), "no more threads than architectures");
    assertEquals("2", SlurmLauncher.withThreads(TWO_ARCHS, Language.CUDA, 2).get(2));
  }

  @Test
  void otherCompilesAreLeftAsTheyAre() {
    assertEquals(TWO_ARCHS, SlurmLauncher.withThreads(TWO_ARCHS, Language.CUDA, 1), "one CPU: one thread");
    List<String> oneArch = List.of("nvcc", "-c", "-gencode", "arch=compute_90a,code=sm_90a", "k.cu");
    assertEquals(oneArch, SlurmLauncher.withThreads(oneArch, Language.CUDA, 8), "one architecture: nothing to split");
    List<String> chosen = List.of("nvcc", "--threads", "3", "-gencode", "a", "-gencode", "b", "k.cu");
    assertEquals(chosen, SlurmLauncher.withThreads(chosen, Language.CUDA, 8), "the user's own --threads stays");
    List<String> hip = List.of("hipcc", "--offload-arch=gfx90a", "--offload-arch=gfx942", "k.hip");
    assertEquals(hip, SlurmLauncher.withThreads(hip, Language.HIP, 8));
  }
}
