package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.toolchain.ProcessRunner;
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
        new ProcessRunner(Map.of()), null, 400, 2, dir.resolve("out"), dir, hashes, new RecordingLog());
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
}
