package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.ContentHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stage around the builder: what it refuses to record or cache. */
class ArchiveStageTest {
  @TempDir Path dir;

  private ArchiveStage stage(ContentHashes hashes) throws Exception {
    return new ArchiveStage(new Toolchain(ToolchainConfig.defaults(), System.getenv()).archiver(),
        new ProcessRunner(Map.of()), null, 400, 2, dir.resolve("out"), dir, hashes, new RecordingLog(),
        ElfObject.hostMachine());
  }

  private static ArchiveRequest request(List<PlannedMember> members) {
    return new ArchiveRequest("k", members.stream()
        .map(m -> new ArchiveRequest.Member(m.name(), m.object(), "prebuilt object " + m.sha256())).toList());
  }

  @Test
  void aPrebuiltObjectRewrittenAfterPlanningIsNotArchivedUnderItsOldHash() throws Exception {
    List<PlannedMember> members = NativeObjects.members(dir.resolve("obj"), 3, i -> "k" + i + ".o");
    ContentHashes hashes = new ContentHashes();
    members.forEach(m -> hashes.of(m.object())); // planning keyed the archive by these
    NativeObjects.compile(members.get(1).object(), "int member_1(void) { return -1; }\n");
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> stage(hashes).build(request(members), Map.of()));
    assertTrue(e.getMessage().contains(members.get(1).object() + " changed while the build was running"),
        e.getMessage());
    assertTrue(Files.notExists(dir.resolve("out/libk.a")), "nothing is left to link");
  }

  @Test
  void aMissingObjectIsNamed() throws Exception {
    List<PlannedMember> members = NativeObjects.members(dir.resolve("obj"), 2, i -> "k" + i + ".o");
    Files.delete(members.get(0).object());
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> stage(new ContentHashes()).build(request(members), Map.of()));
    assertTrue(e.getMessage().contains("Object " + members.get(0).object() + " of archive 'k' does not exist."),
        e.getMessage());
  }

  /**
   * llvm-ar's batches share the members evenly among the jobs (5,000 objects on 2 jobs were cut
   * 4,000 and 1,000 when shares were rounded to 2,000), and keep their borders when a few objects
   * come or go.
   */
  @Test
  void llvmArBatchesAreEvenAndTheirBordersStay() {
    Tool llvm = new Tool(Path.of("/usr/bin/llvm-ar"), "LLVM version 14.0.6");
    assertEquals(2560, ArchiveStage.defaultBatchSize(llvm, 5000, 2));
    assertEquals(2560, ArchiveStage.defaultBatchSize(llvm, 5100, 2), "a few more objects: the same borders");
    assertEquals(25600, ArchiveStage.defaultBatchSize(llvm, 50000, 2));
    assertEquals(25600, ArchiveStage.defaultBatchSize(llvm, 49500, 2));
    assertEquals(12800, ArchiveStage.defaultBatchSize(llvm, 50000, 4));
    for (int members : new int[] {5000, 7777, 50000, 123457}) {
      int size = ArchiveStage.defaultBatchSize(llvm, members, 2);
      int last = members - size;
      assertEquals(2, (members + size - 1) / size, members + " members in batches of " + size);
      assertTrue(last >= size * 7 / 8, members + " members: batches of " + size + " and " + last);
    }
    assertEquals(ArchiveStage.LEAST_BATCH, ArchiveStage.defaultBatchSize(llvm, 300, 2), "a start costs more than a few members");
    assertEquals(400, ArchiveStage.defaultBatchSize(new Tool(Path.of("/usr/bin/ar"), "GNU ar (GNU Binutils) 2.40"), 5000, 2));
  }
}
