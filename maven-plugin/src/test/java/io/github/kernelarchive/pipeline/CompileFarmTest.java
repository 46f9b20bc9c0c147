package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.toolchain.TargetPlatform;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 200-source C/C++ project built across three real {@code distccd} hosts, each in its own
 * network namespace (see {@link FarmHosts}), with {@code kernel.jobs=12}: every host compiles, the
 * archive is byte-identical to a local build and the library loads; the same with three icecream
 * hosts and their scheduler. A host killed in the middle
 * of the build costs time, not the build; a farm that fails outright is replaced by local
 * compiles, each saying so. Skipped, with the reason printed, where namespaces cannot be made or
 * distcc is not installed.
 */
class CompileFarmTest {
  private static final int SOURCES = 200;
  @TempDir Path dir;
  private Path project;

  @BeforeEach
  void project() throws Exception {
    Installed.assumeOnPath("distcc", "compiling on a farm");
    Installed.assumeOnPath("distccd", "compiling on a farm");
    assumeTrue(FarmHosts.available(), "network namespaces cannot be made here");
    project = dir.resolve("project");
    for (int i = 0; i < SOURCES; i++) {
      // Enough work per source that a farm has something to do; every third one C++.
      String body = "int kernel_" + i + "(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * " + i
          + "; return s; }\n";
      Path source = project.resolve("kernels/g" + (i % 8) + "/k" + i + (i % 3 == 0 ? ".cpp" : ".c"));
      Files.createDirectories(source.getParent());
      Files.writeString(source, i % 3 == 0 ? "extern \"C\" " + body : body);
    }
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/api.c"), "int kernel_7(int);\nint farm_api(int x) { return kernel_7(x); }\n");
  }

  private KernelBuildRequest request(String launcher, int jobs, Map<String, String> environment) {
    return request(launcher, jobs, environment, TargetPlatform.host());
  }

  private KernelBuildRequest request(String launcher, int jobs, Map<String, String> environment,
      TargetPlatform platform) {
    return KernelBuildRequest.builder(project, "farm").host(project.resolve("host"))
        .archive("k", project.resolve("kernels")).cFlags("-O2")
        .toolchain(new ToolchainConfig(null, null, null, null, null, launcher, null, environment).forPlatform(platform))
        .jobs(jobs).batchSize(400).exports("farm_api").build();
  }

  /** The local build's archive, for comparison; the project is then cleaned for the next build. */
  private byte[] localArchive() throws Exception {
    BuildSummary local = new KernelBuild(new RecordingLog(), System.getenv()).run(request(null, 2, Map.of()));
    assertEquals(SOURCES + 1, local.compiled());
    byte[] archive = Files.readAllBytes(project.resolve("target/kernel/libk.a"));
    deleteTree(project.resolve("target"));
    return archive;
  }

  /** Three hosts, each running distccd with 4 slots. */
  private static FarmHosts distccFarm() throws Exception {
    FarmHosts hosts = FarmHosts.create(3);
    try {
      for (int n = 1; n <= 3; n++) {
        hosts.startDistccd(n, 4);
      }
      return hosts;
    } catch (Exception e) {
      hosts.close();
      throw e;
    }
  }

  private static Map<String, String> distccHosts(FarmHosts hosts, int slots) {
    List<String> list = new ArrayList<>();
    for (int n = 1; n <= hosts.count(); n++) {
      list.add(FarmHosts.address(n) + "/" + slots);
    }
    return Map.of("DISTCC_HOSTS", String.join(" ", list));
  }

  @Test
  void threeDistccHostsBuildTheSameArchiveAsALocalBuild() throws Exception {
    byte[] local = localArchive();
    try (FarmHosts hosts = distccFarm()) {
      Map<String, String> environment = withStateFolder(distccHosts(hosts, 4));
      RecordingLog log = new RecordingLog();
      BuildSummary farmed = new KernelBuild(log, System.getenv()).run(request("distcc", 12, environment));
      assertEquals(SOURCES + 1, farmed.compiled(), log.text());
      for (int n = 1; n <= 3; n++) {
        assertTrue(hosts.compiles(n) > 0, "host " + n + " compiled nothing:\n" + Files.readString(hosts.log(n)));
        String host = FarmHosts.address(n);
        // The [n/N] line names the host distcc says ran the compile; its trace lines are not shown.
        assertTrue(log.lines().stream().anyMatch(l -> l.matches("INFO \\[\\d+/201\\] .* on " + host.replace(".", "\\."))),
            "no [n/N] line names " + host + ":\n" + log.text());
      }
      assertTrue(log.lines().stream().noneMatch(l -> l.contains("(dcc_")), "distcc's trace reached the log");
      assertArrayEquals(local, Files.readAllBytes(project.resolve("target/kernel/libk.a")),
          "the farm's archive differs from the local build's");
      assertEquals("315", Commands.callLibrary(project.resolve("target/kernel/libfarm.so"), "farm_api", 10, dir),
          "kernel_7(10) through the library");
    }
  }

  @Test
  void threeIcecreamHostsWithTheirSchedulerBuildTheSameArchive() throws Exception {
    for (String tool : List.of("icecc", "iceccd", "icecc-scheduler")) {
      Installed.assumeOnPath(tool, "compiling with icecream");
    }
    byte[] local = localArchive();
    try (FarmHosts hosts = FarmHosts.create(3)) {
      hosts.startIcecream(4);
      RecordingLog log = new RecordingLog();
      BuildSummary farmed = new KernelBuild(log, System.getenv()).run(request("icecc", 12,
          hosts.icecreamClientEnvironment()));
      assertEquals(SOURCES + 1, farmed.compiled(), log.text());
      for (int n = 1; n <= 3; n++) {
        assertTrue(hosts.compiles(n) > 0, "host " + n + " compiled nothing:\n" + Files.readString(hosts.log(n)));
      }
      assertArrayEquals(local, Files.readAllBytes(project.resolve("target/kernel/libk.a")),
          "the farm's archive differs from the local build's");
      assertEquals("315", Commands.callLibrary(project.resolve("target/kernel/libfarm.so"), "farm_api", 10, dir));
    }
  }

  @Test
  void aHostKilledMidBuildCostsTimeNotTheBuild() throws Exception {
    byte[] local = localArchive();
    try (FarmHosts hosts = distccFarm()) {
      AtomicBoolean killed = new AtomicBoolean();
      Thread killer = new Thread(() -> {
        try {
          while (!Thread.currentThread().isInterrupted()) {
            if (hosts.compiles(2) >= 5) {
              hosts.kill(2); // SIGKILL to its distccd: in-flight compiles lose their connection
              killed.set(true);
              return;
            }
            Thread.sleep(20);
          }
        } catch (Exception e) {
          // the build's assertions tell
        }
      });
      killer.start();
      RecordingLog log = new RecordingLog();
      BuildSummary farmed;
      try {
        farmed = new KernelBuild(log, System.getenv()).run(request("distcc", 12,
            withStateFolder(distccHosts(hosts, 4))));
      } finally {
        killer.interrupt();
        killer.join();
      }
      assertTrue(killed.get(), "host 2 was to be killed after 5 compiles:\n" + Files.readString(hosts.log(2)));
      assertEquals(SOURCES + 1, farmed.compiled(), log.text());
      assertArrayEquals(local, Files.readAllBytes(project.resolve("target/kernel/libk.a")));
    }
  }

  /**
   * A linux-aarch64 build on the same farm: the cross compiler travels by its triple name
   * ({@code aarch64-linux-gnu-gcc}, which each distccd must allow: Debian's
   * {@code update-distcc-symlinks} lists it once the cross compiler is installed), every host
   * compiles, and the archive is the local cross build's, byte for byte.
   */
  @Test
  void crossCompilesTravelToTheFarmByTheirTripleName() throws Exception {
    Installed.assumeOnPath("aarch64-linux-gnu-gcc", "compiling for linux-aarch64 on a farm");
    Installed.assumeOnPath("aarch64-linux-gnu-g++", "compiling for linux-aarch64 on a farm");
    boolean allowed = Files.exists(Path.of("/usr/lib/distcc/aarch64-linux-gnu-gcc"))
        && Files.exists(Path.of("/usr/lib/distcc/aarch64-linux-gnu-g++"));
    if (!allowed) {
      System.out.println("SKIPPED: distccd does not allow aarch64-linux-gnu-gcc (run update-distcc-symlinks, from"
          + " package distcc, after installing gcc-aarch64-linux-gnu); cross compiles on a farm are not tested");
    }
    assumeTrue(allowed, "distccd does not allow the cross compiler");
    TargetPlatform aarch64 = TargetPlatform.named("linux-aarch64");
    BuildSummary localBuild = new KernelBuild(new RecordingLog(), System.getenv())
        .run(request(null, 2, Map.of(), aarch64));
    assertEquals(SOURCES + 1, localBuild.compiled());
    byte[] local = Files.readAllBytes(project.resolve("target/kernel/libk.a"));
    deleteTree(project.resolve("target"));
    try (FarmHosts hosts = distccFarm()) {
      RecordingLog log = new RecordingLog();
      BuildSummary farmed = new KernelBuild(log, System.getenv())
          .run(request("distcc", 12, withStateFolder(distccHosts(hosts, 4)), aarch64));
      assertEquals(SOURCES + 1, farmed.compiled(), log.text());
      assertTrue(log.lines().stream().noneMatch(l -> l.contains("compiled locally")), log.text());
      for (int n = 1; n <= 3; n++) {
        assertTrue(hosts.compiles(n) > 0, "host " + n + " compiled nothing:\n" + Files.readString(hosts.log(n)));
      }
      assertArrayEquals(local, Files.readAllBytes(project.resolve("target/kernel/libk.a")),
          "the farm's aarch64 archive differs from the local cross build's");
      assertEquals(ElfObject.EM_AARCH64, ElfObject.read(project.resolve("target/kernel/libfarm.so")).machine());
    }
  }

  @Test
  void aFarmThatFailsOutrightIsReplacedByLocalCompilesThatSaySo() throws Exception {
    byte[] local = localArchive();
    // No daemon listens there, and distcc is told not to fall back itself: every compile fails for the farm's reasons.
    Map<String, String> environment = withStateFolder(Map.of("DISTCC_HOSTS", "127.0.0.1:9/4", "DISTCC_FALLBACK", "0"));
    RecordingLog log = new RecordingLog();
    BuildSummary built = new KernelBuild(log, System.getenv()).run(request("distcc", 4, environment));
    assertEquals(SOURCES + 1, built.compiled(), log.text());
    long fellBack = log.lines().stream().filter(l -> l.matches("INFO \\[\\d+/\\d+\\] .* \\(distcc failed \\(exit 1\\d\\d: .*"
        + "; compiled locally\\)")).count();
    assertEquals(SOURCES + 1, fellBack, log.text());
    assertArrayEquals(local, Files.readAllBytes(project.resolve("target/kernel/libk.a")));
  }

  /** A private state folder: host back-off records of one test must not reach another. */
  private Map<String, String> withStateFolder(Map<String, String> environment) throws Exception {
    Map<String, String> all = new java.util.HashMap<>(environment);
    all.put("DISTCC_DIR", Files.createDirectories(dir.resolve("distcc-state")).toString());
    return all;
  }

  private static void deleteTree(Path root) throws Exception {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
