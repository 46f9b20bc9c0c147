package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A library whose audit fails is never left where consumers pick it up: not the new one, and not
 * the one an earlier, good build left there; audit.txt says what failed. A version node the
 * linkers would reject fails before anything is compiled, naming the parameter.
 */
class FailedAuditTest {
  @TempDir Path project;

  private KernelBuildRequest request(List<String> exports, String symbolVersion) throws Exception {
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/api.c"), "int api_answer(void) { return 42; }\n");
    return KernelBuildRequest.builder(project, "api").host(project.resolve("host")).cFlags("-O1").jobs(2)
        .exports(exports.toArray(String[]::new)).symbolVersion(symbolVersion).build();
  }

  @Test
  void aFailedAuditWithdrawsTheLibraryAndReportsWhy() throws Exception {
    Path library = project.resolve("target/kernel/libapi.so");
    new KernelBuild(new RecordingLog(), System.getenv()).run(request(List.of("api_*"), "API_1"));
    assertTrue(Files.isRegularFile(library));

    BuildFailureException failure = assertThrows(BuildFailureException.class,
        () -> new KernelBuild(new RecordingLog(), System.getenv()).run(request(List.of("api_*", "nothing_*"), "API_1")));
    assertTrue(failure.getMessage().contains("<export> pattern 'nothing_*' matches no exported symbol"),
        failure.getMessage());
    assertFalse(Files.exists(library), "neither the new library nor the earlier one stays published");
    assertFalse(Files.exists(project.resolve("target/kernel/link/libapi.so.key")), "the next build links again");
    String audit = Files.readString(project.resolve("target/kernel/audit.txt"));
    assertTrue(audit.contains("FAILED, not published: 1 problem(s)\n  <export> pattern 'nothing_*'"), audit);
    assertTrue(audit.contains("  api_answer@@API_1\n"), audit);

    new KernelBuild(new RecordingLog(), System.getenv()).run(request(List.of("api_*"), "API_1"));
    assertTrue(Files.isRegularFile(library), "fixed, the library is back");
    assertFalse(Files.readString(project.resolve("target/kernel/audit.txt")).contains("FAILED"));
  }

  @Test
  void aVersionNodeTheLinkersWouldRejectNamesTheParameter() throws Exception {
    BuildFailureException failure = assertThrows(BuildFailureException.class,
        () -> new KernelBuild(new RecordingLog(), System.getenv()).run(request(List.of("api_*"), "2.0 beta")));
    assertTrue(failure.getMessage().contains("<symbolVersion> (kernel.symbolVersion) is '2.0 beta'"),
        failure.getMessage());
    assertFalse(Files.exists(project.resolve("target/kernel/obj")), "nothing was compiled");
  }
}
