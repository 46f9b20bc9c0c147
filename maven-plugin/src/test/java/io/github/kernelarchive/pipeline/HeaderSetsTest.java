package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.cache.NginxServer;
import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.scan.Language;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.codehaus.plexus.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One compile key, several header contents (a branch switched and switched back, a header edited
 * and reverted): the cache keeps each, locally and on the shared tier, so going back compiles
 * nothing; beyond {@code BuildCache.VARIANTS} the oldest is dropped.
 */
class HeaderSetsTest {
  @TempDir Path dir;

  private final RecordingLog log = new RecordingLog();
  private Path project;

  private BuildSummary build(Path cache, RemoteCache.Settings remote) throws Exception {
    KernelBuildRequest request = KernelBuildRequest.builder(project, "h").host(project.resolve("src"))
        .archive("hk", project.resolve("kernels")).includeDirectories(project.resolve("include")).exports("h_*")
        .jobs(1).batchSize(400).cache(cache, 1L << 30).remoteCache(remote).build();
    return new KernelBuild(log, System.getenv()).run(request);
  }

  private void header(int value) throws Exception {
    Files.writeString(project.resolve("include/h.h"), "#define H_VALUE " + value + "\n");
  }

  private static String counts(BuildSummary s) {
    return s.compiled() + " compiled, " + s.objectsFromCache() + " from cache, " + s.archivesFromCache()
        + " archives from cache";
  }

  private String answer() throws Exception {
    return Commands.callLibrary(project.resolve("target/kernel/libh.so"), "h_value", 0, dir);
  }

  @Test
  void goingBackToEarlierHeadersCompilesNothingLocallyOrFromTheSharedTier() throws Exception {
    Installed.assumeCompiler(Language.C);
    if (NginxServer.executable() == null) {
      System.out.println("SKIPPED: nginx is not installed (" + Installed.howToInstall("nginx") + "); header sets on"
          + " the shared tier are not tested");
    }
    assumeTrue(NginxServer.executable() != null, "nginx is not installed");
    project = dir.resolve("p");
    Files.createDirectories(project.resolve("src"));
    Files.createDirectories(project.resolve("kernels"));
    Files.createDirectories(project.resolve("include"));
    Files.writeString(project.resolve("src/h.c"), "#include \"h.h\"\nint h_k(void);\nint h_value(int x) { return H_VALUE * 10 + h_k() + x; }\n");
    Files.writeString(project.resolve("kernels/k.c"), "#include \"h.h\"\nint h_k(void) { return H_VALUE; }\n");
    try (NginxServer nginx = new NginxServer(dir.resolve("nginx"), "ci", "pa55")) {
      RemoteCache.Settings remote = SharedCacheProject.remote(nginx.url(), "Basic "
          + Base64.getEncoder().encodeToString("ci:pa55".getBytes(StandardCharsets.UTF_8)), true);
      Path cache = dir.resolve("cache-1");
      for (int value = 1; value <= 3; value++) {
        header(value);
        assertEquals("2 compiled, 0 from cache, 0 archives from cache", counts(build(cache, remote)), log.text());
      }
      // Back to 2, then 1: both header sets are still kept (3 per key).
      header(2);
      assertEquals("0 compiled, 1 from cache, 1 archives from cache", counts(build(cache, remote)), log.text());
      assertEquals("22", answer());
      header(1);
      assertEquals("0 compiled, 1 from cache, 1 archives from cache", counts(build(cache, remote)), log.text());
      assertEquals("11", answer());

      // Another machine, empty local cache, fresh checkout: the shared tier has every set too.
      FileUtils.deleteDirectory(project.resolve("target").toFile());
      header(3);
      assertEquals("0 compiled, 1 from cache, 1 archives from cache", counts(build(dir.resolve("cache-2"), remote)),
          log.text());
      assertEquals("33", answer());
      FileUtils.deleteDirectory(project.resolve("target").toFile());
      header(2);
      assertEquals("0 compiled, 1 from cache, 1 archives from cache", counts(build(dir.resolve("cache-3"), remote)),
          log.text());
      assertEquals("22", answer());

      // A fourth set pushes the oldest (1) out of the first machine's local cache; 2 stays.
      header(4);
      assertEquals("2 compiled, 0 from cache, 0 archives from cache", counts(build(cache, null)), log.text());
      header(2);
      assertEquals("0 compiled, 1 from cache, 1 archives from cache", counts(build(cache, null)), log.text());
      header(1);
      assertEquals("2 compiled, 0 from cache, 0 archives from cache", counts(build(cache, null)), log.text());
    }
  }
}
