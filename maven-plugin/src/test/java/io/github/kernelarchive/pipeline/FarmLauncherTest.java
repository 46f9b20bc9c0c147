package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CUDA sources in a project built through a C/C++ compile farm never reach it: a {@code distcc}
 * stand-in records every command it is given (and runs it locally), and nvcc is not among them.
 */
class FarmLauncherTest {
  @TempDir Path dir;

  @Test
  void nvccCompilesNeverGoToDistcc() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path calls = dir.resolve("distcc-calls.log");
    Path distcc = Files.writeString(bin.resolve("distcc"), "#!/bin/sh\necho \"$*\" >> '" + calls + "'\nexec \"$@\"\n");
    Files.setPosixFilePermissions(distcc, PosixFilePermissions.fromString("rwxr-xr-x"));

    Path project = dir.resolve("p");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/a.c"), "int a(void) { return 1; }\n");
    Files.writeString(project.resolve("src/b.cpp"), "extern \"C\" int b(void) { return 2; }\n");
    Files.writeString(project.resolve("src/k.cu"), "__global__ void k(float *x) { x[0] = 1; }\n"
        + "extern \"C\" int c(void) { return 3; }\n");
    ToolchainConfig tools = new ToolchainConfig(null, null, null, null, null, distcc.toString(), null, Map.of());
    KernelBuildRequest request = KernelBuildRequest.builder(project, "farm").host(project.resolve("src")).cudaArchs("80")
        .toolchain(tools).jobs(2).batchSize(400).build();
    RecordingLog log = new RecordingLog();
    BuildSummary summary = new KernelBuild(log, System.getenv()).run(request);
    assertEquals(3, summary.compiled(), log.text());
    List<String> farmed = Files.readAllLines(calls);
    assertEquals(2, farmed.size(), "the C and C++ sources went through distcc: " + farmed);
    assertTrue(farmed.stream().noneMatch(l -> l.contains("nvcc") || l.contains("k.cu")), farmed.toString());
  }
}
