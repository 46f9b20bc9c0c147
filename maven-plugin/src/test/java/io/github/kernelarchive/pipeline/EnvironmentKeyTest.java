package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.kernelarchive.cache.NginxServer;
import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.codehaus.plexus.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The variables a compiler reads are part of a compile's key: a header found through CPATH in
 * one folder or another is a different object, in the state and in the cache, whether CPATH came
 * from the pom's {@code <environment>} or from the build's own environment; a variable no
 * compiler reads changes nothing, wherever it is set. (The shared HTTP tier stores entries under
 * the same keys: RemoteCacheBuildTest.)
 */
class EnvironmentKeyTest {
  @TempDir Path dir;

  private Path project;
  private final RecordingLog log = new RecordingLog();

  private void writeProject(String source, String file) throws Exception {
    project = dir.resolve("p");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src").resolve(file), source);
    for (String variant : new String[] {"A", "B"}) {
      Path include = Files.createDirectories(dir.resolve("inc" + variant));
      Files.writeString(include.resolve("env.h"), "#define ENV_VALUE " + (variant.equals("A") ? 1 : 2) + "\n");
    }
  }

  private BuildSummary build(Map<String, String> configured, Map<String, String> process, String... cudaArchs)
      throws Exception {
    return build(dir.resolve("cache"), null, configured, process, cudaArchs);
  }

  private BuildSummary build(Path cache, RemoteCache.Settings remote, Map<String, String> configured,
      Map<String, String> process, String... cudaArchs) throws Exception {
    KernelBuildRequest.Builder request = KernelBuildRequest.builder(project, "e").host(project.resolve("src"))
        .exports("e_*").jobs(1).batchSize(400).cache(cache, 1L << 30).remoteCache(remote)
        .toolchain(new ToolchainConfig(null, null, null, null, null, null, null, configured));
    if (cudaArchs.length > 0) {
      request.cudaArchs(cudaArchs[0]);
    }
    Map<String, String> environment = new HashMap<>(System.getenv());
    environment.remove("CPATH");
    environment.putAll(process);
    return new KernelBuild(log, environment).run(request.build());
  }

  private String answer() throws Exception {
    return Commands.callLibrary(project.resolve("target/kernel/libe.so"), "e_value", 0, dir);
  }

  private static String counts(BuildSummary s) {
    return s.compiled() + " compiled, " + s.objectsFromCache() + " from cache, " + s.upToDate() + " up to date";
  }

  @Test
  void cpathFromThePomOrFromTheBuildsEnvironmentIsPartOfTheKeyInTheStateAndTheCache() throws Exception {
    Installed.assumeCompiler(Language.C);
    writeProject("#include \"env.h\"\nint e_value(int x) { return ENV_VALUE + x; }\n", "e.c");
    Map<String, String> a = Map.of("CPATH", dir.resolve("incA").toString());
    Map<String, String> b = Map.of("CPATH", dir.resolve("incB").toString());

    assertEquals("1 compiled, 0 from cache, 0 up to date", counts(build(a, Map.of())));
    assertEquals("1", answer());
    assertEquals("1 compiled, 0 from cache, 0 up to date", counts(build(b, Map.of())));
    assertEquals("2", answer());
    assertEquals("0 compiled, 0 from cache, 1 up to date", counts(build(b, Map.of())));

    // A clean checkout: the cache serves each environment its own object.
    FileUtils.deleteDirectory(project.resolve("target").toFile());
    assertEquals("0 compiled, 1 from cache, 0 up to date", counts(build(a, Map.of())));
    assertEquals("1", answer());
    FileUtils.deleteDirectory(project.resolve("target").toFile());
    assertEquals("0 compiled, 1 from cache, 0 up to date", counts(build(b, Map.of())));
    assertEquals("2", answer());

    // The same from the build's own environment; a variable no compiler reads changes nothing.
    assertEquals("0 compiled, 1 from cache, 0 up to date", counts(build(Map.of(), a)));
    assertEquals("1", answer());
    Map<String, String> unrelated = new HashMap<>(a);
    unrelated.put("KERNEL_ARCHIVE_TEST_UNRELATED", "x");
    assertEquals("0 compiled, 0 from cache, 1 up to date", counts(build(Map.of(), unrelated)));
    // Nor does a tool's bookkeeping in <environment> (a launcher's log folder, per machine).
    assertEquals("0 compiled, 0 from cache, 1 up to date",
        counts(build(Map.of("CCACHE_LOGFILE", dir.resolve("ccache.log").toString()), a)));
  }

  @Test
  void anEntryTheSharedTierHoldsForOneEnvironmentIsNotTakenUnderAnother() throws Exception {
    Installed.assumeCompiler(Language.C);
    if (NginxServer.executable() == null) {
      System.out.println("SKIPPED: nginx is not installed (" + Installed.howToInstall("nginx") + "); the shared"
          + " tier's environment keys are not tested");
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(NginxServer.executable() != null, "nginx is not installed");
    writeProject("#include \"env.h\"\nint e_value(int x) { return ENV_VALUE + x; }\n", "e.c");
    try (NginxServer nginx = new NginxServer(dir.resolve("nginx"), "ci", "pa55")) {
      RemoteCache.Settings remote = SharedCacheProject.remote(nginx.url(), "Basic " + java.util.Base64.getEncoder()
          .encodeToString("ci:pa55".getBytes(java.nio.charset.StandardCharsets.UTF_8)), true);
      Map<String, String> a = Map.of("CPATH", dir.resolve("incA").toString());
      Map<String, String> b = Map.of("CPATH", dir.resolve("incB").toString());
      // Runner 1 pushes the object built under incA; runner 2 (empty local cache) builds under incB.
      assertEquals("1 compiled, 0 from cache, 0 up to date", counts(build(dir.resolve("cache-1"), remote, a, Map.of())));
      FileUtils.deleteDirectory(project.resolve("target").toFile());
      assertEquals("1 compiled, 0 from cache, 0 up to date", counts(build(dir.resolve("cache-2"), remote, b, Map.of())));
      assertEquals("2", answer());
      // Runner 3, under incA again, takes the shared entry.
      FileUtils.deleteDirectory(project.resolve("target").toFile());
      assertEquals("0 compiled, 1 from cache, 0 up to date", counts(build(dir.resolve("cache-3"), remote, a, Map.of())));
      assertEquals("1", answer());
    }
  }

  @Test
  void nvccAppendFlagsArePartOfTheKey() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    writeProject("#ifndef MARK\n#define MARK 1\n#endif\nextern \"C\" int e_value(int x) { return MARK + x; }\n", "e.cu");
    assertEquals("1 compiled, 0 from cache, 0 up to date", counts(build(Map.of(), Map.of(), "80")));
    assertEquals("1", answer());
    assertEquals("1 compiled, 0 from cache, 0 up to date",
        counts(build(Map.of(), Map.of("NVCC_APPEND_FLAGS", "-DMARK=2"), "80")));
    assertEquals("2", answer());
  }
}
