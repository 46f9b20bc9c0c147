package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code kernel.batchSize}, llvm-ar's batches hold 2,000 objects or more, in steps of 2,000, so there are
 * no more batches than jobs (its start costs more than its members), and GNU ar's 400 (its time per
 * member grows with the batch); either way the archive's bytes are the same.
 */
class DefaultBatchSizeTest {
  private static final int OBJECTS = 4001;

  @TempDir Path dir;

  @Test
  void batchesFollowTheArchiver() throws Exception {
    Installed.assumeOnPath("llvm-ar", "its default batch size");
    Path objects = objects();

    BuildSummary oneJob = build("llvm1", objects, "llvm-ar", 1);
    BuildSummary twoJobs = build("llvm2", objects, "llvm-ar", 2);
    BuildSummary gnu = build("gnu", objects, "ar", 2);

    assertEquals(1, oneJob.batchesRun(), "4,001 objects for 1 job: one batch of 6,000");
    // The archive stage runs on this machine's cores only.
    boolean twoCores = Runtime.getRuntime().availableProcessors() >= 2;
    assertEquals(twoCores ? 2 : 1, twoJobs.batchesRun(), "4,001 objects for 2 jobs: batches of 4,000");
    assertEquals(11, gnu.batchesRun(), "4,001 objects in batches of 400");
    byte[] archive = Files.readAllBytes(dir.resolve("llvm1/target/kernel/libk.a"));
    assertArrayEquals(archive, Files.readAllBytes(dir.resolve("llvm2/target/kernel/libk.a")));
    assertArrayEquals(archive, Files.readAllBytes(dir.resolve("gnu/target/kernel/libk.a")));
  }

  /** Copies of one object that defines no global symbol (so no copy clashes with another). */
  private Path objects() throws Exception {
    Path source = Files.writeString(dir.resolve("quiet.c"), "static int quiet(void) { return 0; }\n");
    Path object = dir.resolve("quiet.o");
    Commands.run(List.of("cc", "-c", "-fPIC", "-o", object.toString(), source.toString()), dir);
    Path objects = Files.createDirectories(dir.resolve("objects"));
    for (int i = 0; i < OBJECTS; i++) {
      Files.copy(object, objects.resolve(String.format("q%04d.o", i)));
    }
    return objects;
  }

  private BuildSummary build(String name, Path objects, String archiver, int jobs) throws Exception {
    Path project = Files.createDirectories(dir.resolve(name));
    KernelBuildRequest request = KernelBuildRequest.builder(project, "k").archiveObjects("k", objects)
        .toolchain(new ToolchainConfig(null, null, null, null, archiver, null, null, Map.of())).jobs(jobs).build();
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request);
  }
}
