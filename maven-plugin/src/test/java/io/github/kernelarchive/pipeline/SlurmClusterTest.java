package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.compile.ClusterSettings;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.link.CudaRuntime;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.TargetPlatform;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles on a real Slurm cluster ({@link SlurmCluster}: slurmctld here, three slurmd nodes in
 * network namespaces sharing this file system): 12 CUDA sources (where nvcc is), HIP sources
 * (where hipcc is) and C sources go through srun; every node compiles, each archive is
 * byte-identical to a local build's, the library loads. A node killed in the middle of the build
 * costs time, not the build; a controller that is down means local compiles and one warning.
 */
class SlurmClusterTest {
  private static final int C_SOURCES = 12;
  private static final int CUDA_SOURCES = 12;
  private static final int HIP_SOURCES = 3;
  @TempDir Path dir;
  private Path project;
  private boolean cuda;
  private boolean hip;

  @BeforeEach
  void project() throws Exception {
    assumeTrue(SlurmCluster.available(), "network namespaces cannot be made here");
    Toolchain toolchain = new Toolchain(ToolchainConfig.defaults(), System.getenv());
    cuda = toolchain.compiler(Language.CUDA).isPresent();
    hip = toolchain.compiler(Language.HIP).isPresent();
    if (!cuda) {
      System.out.println("SKIPPED (part): nvcc is not installed (" + Installed.CUDA_TOOLKIT + "); SlurmClusterTest"
          + " compiles no CUDA sources");
    }
    if (!hip) {
      System.out.println("SKIPPED (part): hipcc is not installed (" + Installed.howToInstall("hipcc") + ");"
          + " SlurmClusterTest compiles no HIP sources");
    }
    project = dir.resolve("project");
    for (int i = 0; i < C_SOURCES; i++) {
      write("kernels/c/k" + i + ".c", "int kernel_" + i + "(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * "
          + i + "; return s; }\n");
    }
    for (int i = 0; cuda && i < CUDA_SOURCES; i++) {
      write("kernels/cuda/scale" + i + ".cu", "__global__ void scale" + i + "(float *x, int n) {\n"
          + "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= " + (i + 2) + ".0f;\n}\n"
          + "extern \"C\" void launch_scale" + i + "(float *x, int n) { scale" + i + "<<<(n + 255) / 256, 256>>>(x, n); }\n");
    }
    for (int i = 0; hip && i < HIP_SOURCES; i++) {
      write("kernels/hip/fill" + i + ".hip", "#include <hip/hip_runtime.h>\n__global__ void fill" + i
          + "(int *x) { x[threadIdx.x] = " + i + "; }\nextern \"C\" void launch_fill" + i
          + "(int *x) { hipLaunchKernelGGL(fill" + i + ", dim3(1), dim3(64), 0, 0, x); }\n");
    }
    write("host/api.c", "int kernel_7(int);\nint slurm_api(int x) { return kernel_7(x); }\n");
  }

  private void write(String path, String text) throws Exception {
    Path file = project.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  /** The project; through {@code cluster} when given. */
  private KernelBuildRequest request(ClusterSettings cluster) {
    return request(cluster, 0);
  }

  private KernelBuildRequest request(ClusterSettings cluster, int jobs) {
    return request(cluster, jobs, TargetPlatform.host());
  }

  /** For another platform than this machine's: no HIP (hipcc has no cross compiler), CUDA through the stub. */
  private KernelBuildRequest request(ClusterSettings cluster, int jobs, TargetPlatform platform) {
    KernelBuildRequest.Builder builder = KernelBuildRequest.builder(project, "slurm").host(project.resolve("host"))
        .archive("c", project.resolve("kernels/c")).cFlags("-O2").exports("slurm_api").cluster(cluster).jobs(jobs)
        .toolchain(ToolchainConfig.defaults().forPlatform(platform));
    if (cuda) {
      builder.archive("cu", project.resolve("kernels/cuda")).cudaArchs("80;90");
    }
    if (platform.cross()) {
      builder.cudaRuntime(CudaRuntime.STUB);
    } else if (hip) {
      builder.archive("hip", project.resolve("kernels/hip")).hipArchs("gfx90a").linkFlags("-lamdhip64");
    }
    return builder.build();
  }

  private static ClusterSettings srun(Duration timeout) {
    return new ClusterSettings(List.of("srun"), 1, timeout);
  }

  private int sources() {
    return C_SOURCES + 1 + (cuda ? CUDA_SOURCES : 0) + (hip ? HIP_SOURCES : 0);
  }

  private List<String> archives() {
    List<String> names = new ArrayList<>(List.of("c"));
    if (cuda) {
      names.add("cu");
    }
    if (hip) {
      names.add("hip");
    }
    return names;
  }

  /** Each archive of a local build, for comparison; the project is then cleaned for the next build. */
  private Map<String, byte[]> localArchives() throws Exception {
    BuildSummary local = new KernelBuild(new RecordingLog(), System.getenv()).run(request(null, 2));
    assertEquals(sources(), local.compiled());
    Map<String, byte[]> archives = new HashMap<>();
    for (String name : archives()) {
      archives.put(name, Files.readAllBytes(project.resolve("target/kernel/lib" + name + ".a")));
    }
    deleteTree(project.resolve("target"));
    return archives;
  }

  /**
   * The member where two archives first differ and the bytes around it in each, so that a failure
   * says which object came out otherwise and how (a process id, a path, a time).
   */
  private static String whereTheyDiffer(byte[] expected, byte[] actual) {
    int at = java.util.Arrays.mismatch(expected, actual);
    if (at < 0) {
      return "";
    }
    String member = "the archive's head";
    try {
      Path file = Files.createTempFile("expected", ".a");
      try {
        Files.write(file, expected);
        for (io.github.kernelarchive.ar.ArMember m : io.github.kernelarchive.ar.ArReader.read(file).members()) {
          if (at >= m.headerOffset() && at < m.dataOffset() + m.size()) {
            member = "member '" + m.name() + "' at byte " + (at - m.dataOffset()) + " of its data";
          }
        }
      } finally {
        Files.delete(file);
      }
    } catch (Exception e) {
      member = "(not read: " + e + ")";
    }
    return "; first at byte " + at + ", " + member + ": local '" + around(expected, at) + "', cluster '"
        + around(actual, at) + "'";
  }

  /** 24 bytes either side of {@code at}, printable ASCII as it is and anything else as {@code \xNN}. */
  private static String around(byte[] bytes, int at) {
    StringBuilder text = new StringBuilder();
    for (int i = Math.max(0, at - 24); i < Math.min(bytes.length, at + 24); i++) {
      int b = bytes[i] & 0xff;
      text.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b));
    }
    return text.toString();
  }

  private static Map<String, String> environment(SlurmCluster cluster) {
    Map<String, String> environment = new HashMap<>(System.getenv());
    environment.putAll(cluster.environment());
    return environment;
  }

  @Test
  void threeNodesBuildTheSameArchivesAsALocalBuild() throws Exception {
    Map<String, byte[]> local = localArchives();
    try (SlurmCluster cluster = SlurmCluster.start(3)) {
      RecordingLog log = new RecordingLog();
      BuildSummary built = new KernelBuild(log, environment(cluster)).run(request(srun(Duration.ofMinutes(10))));
      assertEquals(sources(), built.compiled(), log.text());
      assertTrue(log.lines().contains("INFO Jobs: 3 (srun: 3 idle CPUs in the cluster, 1 per job)"), log.text());
      for (int n = 1; n <= 3; n++) {
        assertTrue(cluster.steps(n) > 0, "node n" + n + " ran no compile");
        String node = "n" + n;
        assertTrue(log.lines().stream().anyMatch(l -> l.matches("INFO \\[\\d+/\\d+\\] .* on " + node)),
            "no [n/N] line names " + node + ":\n" + log.text());
      }
      assertTrue(log.lines().stream().noneMatch(l -> l.contains("compiled locally")), log.text());
      for (String name : archives()) {
        byte[] fromCluster = Files.readAllBytes(project.resolve("target/kernel/lib" + name + ".a"));
        assertArrayEquals(local.get(name), fromCluster, () -> "lib" + name + ".a from the cluster differs from the"
            + " local build's" + whereTheyDiffer(local.get(name), fromCluster));
      }
      assertEquals("315", Commands.callLibrary(project.resolve("target/kernel/libslurm.so"), "slurm_api", 10, dir),
          "kernel_7(10) through the library");
    }
  }

  /**
   * A linux-aarch64 build on the same cluster: its cross compiles (C, and CUDA with the cross
   * compiler as nvcc's host compiler, where nvcc is) run on the nodes, and each archive is the local
   * cross build's, byte for byte.
   */
  @Test
  void crossCompilesForAarch64RunOnTheNodesToo() throws Exception {
    Installed.assumeOnPath("aarch64-linux-gnu-gcc", "compiling for linux-aarch64 on a Slurm cluster");
    Installed.assumeOnPath("aarch64-linux-gnu-g++", "compiling for linux-aarch64 on a Slurm cluster");
    TargetPlatform aarch64 = TargetPlatform.named("linux-aarch64");
    int sources = C_SOURCES + 1 + (cuda ? CUDA_SOURCES : 0);
    List<String> names = cuda ? List.of("c", "cu") : List.of("c");
    BuildSummary localBuild = new KernelBuild(new RecordingLog(), System.getenv()).run(request(null, 2, aarch64));
    assertEquals(sources, localBuild.compiled());
    Map<String, byte[]> local = new HashMap<>();
    for (String name : names) {
      local.put(name, Files.readAllBytes(project.resolve("target/kernel/lib" + name + ".a")));
    }
    deleteTree(project.resolve("target"));
    try (SlurmCluster cluster = SlurmCluster.start(3)) {
      RecordingLog log = new RecordingLog();
      BuildSummary built = new KernelBuild(log, environment(cluster))
          .run(request(srun(Duration.ofMinutes(10)), 0, aarch64));
      assertEquals(sources, built.compiled(), log.text());
      assertTrue(log.lines().stream().noneMatch(l -> l.contains("compiled locally")), log.text());
      for (int n = 1; n <= 3; n++) {
        assertTrue(cluster.steps(n) > 0, "node n" + n + " ran no compile");
      }
      for (String name : names) {
        byte[] fromCluster = Files.readAllBytes(project.resolve("target/kernel/lib" + name + ".a"));
        assertArrayEquals(local.get(name), fromCluster, () -> "lib" + name + ".a for aarch64 from the cluster differs"
            + " from the local build's" + whereTheyDiffer(local.get(name), fromCluster));
      }
      assertEquals(ElfObject.EM_AARCH64, ElfObject.read(project.resolve("target/kernel/libslurm.so")).machine());
    }
  }

  @Test
  void aNodeKilledMidBuildCostsTimeNotTheBuild() throws Exception {
    for (int i = C_SOURCES; i < 40; i++) {
      // More and slower sources: the build must still be running when the node dies.
      write("kernels/c/slow" + i + ".c", "#define R(x) x x x x x x x x\nint slow_" + i + "(volatile int *p) { int s = 0;"
          + " R(R(R(s += *p * " + i + ";))) return s; }\n");
    }
    try (SlurmCluster cluster = SlurmCluster.start(3)) {
      RecordingLog log = new RecordingLog();
      CompletableFuture<BuildSummary> build = CompletableFuture.supplyAsync(() -> {
        try {
          return new KernelBuild(log, environment(cluster)).run(request(srun(Duration.ofSeconds(45))));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (cluster.steps(2) == 0 && System.nanoTime() < deadline && !build.isDone()) {
        Thread.sleep(20);
      }
      cluster.killNode(2);
      BuildSummary built = build.get(5, TimeUnit.MINUTES);
      assertEquals(sources() + 40 - C_SOURCES, built.compiled(), log.text());
      List<String> local = log.lines().stream().filter(l -> l.contains("; compiled locally)")).toList();
      assertTrue(!local.isEmpty(), "no compile of the dead node was done here:\n" + log.text());
      local.forEach(l -> System.out.println("SlurmClusterTest, node n2 killed: " + l));
      assertEquals("315", Commands.callLibrary(project.resolve("target/kernel/libslurm.so"), "slurm_api", 10, dir));
    }
  }

  @Test
  void aControllerThatIsDownMeansLocalCompilesAndOneWarning() throws Exception {
    try (SlurmCluster cluster = SlurmCluster.start(3)) {
      cluster.stopController();
      RecordingLog log = new RecordingLog();
      BuildSummary built = new KernelBuild(log, environment(cluster)).run(request(srun(Duration.ofMinutes(1))));
      assertEquals(sources(), built.compiled(), log.text());
      List<String> warnings = log.lines().stream().filter(l -> l.startsWith("WARN kernel.cluster.launcher")).toList();
      assertEquals(1, warnings.size(), log.text());
      assertTrue(warnings.get(0).endsWith("): compiling here."), warnings.get(0));
      assertEquals(0, cluster.steps(1) + cluster.steps(2) + cluster.steps(3));
      assertEquals("315", Commands.callLibrary(project.resolve("target/kernel/libslurm.so"), "slurm_api", 10, dir));
    }
  }

  private static void deleteTree(Path root) throws Exception {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
