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
 * Without {@code kernel.batchSize}, batches hold 2,000 objects with llvm-ar (its start costs more
 * than its members) and 400 with GNU ar (its time per member grows with the batch); either way the
 * archive's bytes are the same.
 */
class DefaultBatchSizeTest {
  private static final int OBJECTS = 2001;

  @TempDir Path dir;

  @Test
  void batchesFollowTheArchiver() throws Exception {
    Installed.assumeOnPath("llvm-ar", "its default batch size");
    Path objects = objects();

    BuildSummary llvm = build("llvm", objects, "llvm-ar");
    BuildSummary gnu = build("gnu", objects, "ar");

    assertEquals(2, llvm.batchesRun(), "2,001 objects in batches of 2,000");
    assertEquals(6, gnu.batchesRun(), "2,001 objects in batches of 400");
    assertArrayEquals(Files.readAllBytes(dir.resolve("llvm/target/kernel/libk.a")),
        Files.readAllBytes(dir.resolve("gnu/target/kernel/libk.a")));
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

  private BuildSummary build(String name, Path objects, String archiver) throws Exception {
    Path project = Files.createDirectories(dir.resolve(name));
    KernelBuildRequest request = KernelBuildRequest.builder(project, "k").archiveObjects("k", objects)
        .toolchain(new ToolchainConfig(null, null, null, null, archiver, null, null, Map.of())).jobs(2).build();
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request);
  }
}
