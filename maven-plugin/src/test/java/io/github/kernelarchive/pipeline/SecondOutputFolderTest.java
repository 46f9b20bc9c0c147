package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.scan.Language;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second execution over the same sources into another output folder (native/'s wheel build next
 * to its main one) compiles nothing: the object's folder is not in its compile key, so the cache
 * serves every object the first build made.
 */
class SecondOutputFolderTest {
  @TempDir Path dir;

  @Test
  void aSecondOutputFolderIsServedByTheCache() throws Exception {
    Installed.assumeCompiler(Language.C);
    Path project = dir.resolve("p");
    Files.createDirectories(project.resolve("host"));
    for (int i = 0; i < 4; i++) {
      Files.writeString(project.resolve("host/k" + i + ".c"), "int k" + i + "(int x) { return x * " + (i + 2) + "; }\n");
    }
    Path cache = dir.resolve("cache");
    BuildSummary first = build(project, cache, "kernel");
    assertEquals(4, first.compiled());
    RecordingLog log = new RecordingLog();
    BuildSummary second = new KernelBuild(log, System.getenv()).run(request(project, cache, "kernel-wheel"));
    assertEquals(0, second.compiled(), log.text());
    assertEquals(4, second.objectsFromCache(), log.text());
    assertTrue(Files.isRegularFile(project.resolve("target/kernel-wheel/libk.so")));
  }

  private static BuildSummary build(Path project, Path cache, String folder) throws Exception {
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request(project, cache, folder));
  }

  private static KernelBuildRequest request(Path project, Path cache, String folder) {
    return KernelBuildRequest.builder(project, "k").host(project.resolve("host")).outputDirectory(
        project.resolve("target").resolve(folder)).cache(cache, 1L << 30).jobs(2).exports("k*").build();
  }
}
