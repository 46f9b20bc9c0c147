package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.link.SymbolVersion;
import io.github.kernelarchive.scan.Language;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default version node follows the ABI: a C program linked against 1.0.0 of a library loads
 * and runs with 1.0.1, and 2.0.0 refuses it naming the node it lacks.
 */
class SymbolVersionTest {
  @TempDir Path dir;

  @Test
  void theDefaultNodeIsTheMajorVersionAndTheMinorBefore1() {
    assertEquals("VECOPS_1", SymbolVersion.defaultFor("vecops", "1.0.0"));
    assertEquals("VECOPS_1", SymbolVersion.defaultFor("vecops", "1.7.2-SNAPSHOT"));
    assertEquals("VECOPS_12", SymbolVersion.defaultFor("vecops", "12"));
    assertEquals("VECOPS_0.3", SymbolVersion.defaultFor("vecops", "0.3.1"));
    assertEquals("MHA_0.1", SymbolVersion.defaultFor("mha", "0.1.0-SNAPSHOT"));
    assertEquals("KV_dev_SNAPSHOT", SymbolVersion.defaultFor("kv", "dev-SNAPSHOT"));
    assertEquals("KV", SymbolVersion.defaultFor("kv", null));
  }

  @Test
  void aProgramLinkedAgainst100RunsWith101AndIsRefusedBy200() throws Exception {
    Installed.assumeCompiler(Language.C);
    Path v100 = library("1.0.0", 100);
    Path v101 = library("1.0.1", 101);
    Path v200 = library("2.0.0", 200);
    Path program = dir.resolve("program");
    Commands.run(List.of("cc", Files.writeString(dir.resolve("program.c"), "#include <stdio.h>\nint vecops_dot(void);\n"
        + "int main(void) { printf(\"dot=%d\\n\", vecops_dot()); return 0; }\n").toString(), "-L" + v100.getParent(),
        "-lvecops", "-o", program.toString()), dir);
    assertEquals("dot=100", run(program, v100).output().strip());
    assertEquals("dot=101", run(program, v101).output().strip(), "the same major: the program loads");
    Outcome refused = run(program, v200);
    assertNotEquals(0, refused.status(), refused.output());
    assertTrue(refused.output().contains("version `VECOPS_1' not found"), refused.output());
  }

  private record Outcome(int status, String output) {}

  private static Outcome run(Path program, Path library) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(program.toString()).redirectErrorStream(true);
    builder.environment().put("LD_LIBRARY_PATH", library.getParent().toString());
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Outcome(process.waitFor(), output);
  }

  /** libvecops.so at {@code version}, its node the default for it, answering {@code dot}. */
  private Path library(String version, int dot) throws Exception {
    Path project = dir.resolve("vecops-" + version);
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/vecops.c"), "int vecops_dot(void) { return " + dot + "; }\n"
        + "int vecops_internal(void) { return 1; }\n");
    KernelBuildRequest request = KernelBuildRequest.builder(project, "vecops").host(project.resolve("host"))
        .jobs(1).exports("vecops_dot").symbolVersion(SymbolVersion.defaultFor("vecops", version)).build();
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request).library();
  }
}
