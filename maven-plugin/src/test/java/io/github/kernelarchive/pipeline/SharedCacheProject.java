package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A project as CI runners build it against a shared cache: C++ host sources, an archive {@code k}
 * of C kernels (from {@link Projects}), and a CUDA source in the archive when the test asks for one.
 * Each runner has its own checkout, local cache and counters: the compiler launcher and the
 * archiver are wrappers that log every call, so a test can tell that a build ran none.
 */
final class SharedCacheProject {
  private SharedCacheProject() {}

  /** One CI runner: a checkout, its local cache, and where its wrappers count calls. */
  record Runner(Path project, Path localCache, Path compiles, Path arCalls) {
    List<String> compilerCalls() throws Exception {
      return Files.exists(compiles) ? Files.readAllLines(compiles) : List.of();
    }

    List<String> archiverCalls() throws Exception {
      return Files.exists(arCalls) ? Files.readAllLines(arCalls) : List.of();
    }

    void resetCounts() throws Exception {
      Files.deleteIfExists(compiles);
      Files.deleteIfExists(arCalls);
    }
  }

  /** Writes the sources: {@code count} C kernels, two C++ host files, and {@code k.cu} if asked. */
  static void generate(Path project, int count, boolean cuda) throws Exception {
    Projects.generate(project, count);
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/api.cpp"), String.join("\n",
        "#include <string>",
        "extern \"C\" int kernel_0(void);",
        "extern \"C\" int kernel_" + (count - 1) + "(void);",
        "extern \"C\" int cuda_tag(void) __attribute__((weak));",
        "int host_offset();",
        "extern \"C\" __attribute__((visibility(\"default\"))) int ka_answer(void) {",
        "  return kernel_0() + kernel_" + (count - 1) + "() + host_offset() + (cuda_tag ? cuda_tag() : 0);",
        "}", ""));
    Files.writeString(project.resolve("host/offset.cpp"),
        "#include <string>\nint host_offset() { return static_cast<int>(std::string(\"abc\").size()) * 1000; }\n");
    if (cuda) {
      Files.writeString(project.resolve("kernels/k.cu"), String.join("\n",
          "__global__ void scale(float* x, float f) { x[threadIdx.x] *= f; }",
          "extern \"C\" int cuda_tag(void) { return 100000; }", ""));
    }
  }

  /** The answer {@code ka_answer} must give: kernel_0 + kernel_last + 3000 (+ 100000 with CUDA). */
  static int expectedAnswer(int count, boolean cuda) {
    return (0 % 4) + 0 + ((count - 1) % 4) + (count - 1) + 3000 + (cuda ? 100_000 : 0);
  }

  /** Creates the counting wrappers (shared by every runner, so tool identities match) under {@code tools}. */
  static void writeWrappers(Path tools) throws Exception {
    Files.createDirectories(tools);
    write(tools.resolve("count-launcher"), "#!/bin/sh\necho \"$*\" >> \"$KA_COMPILES\"\nexec \"$@\"\n");
    String ar = Files.isExecutable(Path.of("/usr/bin/llvm-ar")) ? "/usr/bin/llvm-ar" : "ar";
    write(tools.resolve("count-ar"), "#!/bin/sh\n[ \"$1\" = --version ] || echo \"$*\" >> \"$KA_AR_CALLS\"\n"
        + "exec " + ar + " \"$@\"\n");
  }

  private static void write(Path script, String text) throws Exception {
    Files.writeString(script, text);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  static Runner runner(Path root, String name) throws Exception {
    Path home = root.resolve(name);
    Files.createDirectories(home);
    return new Runner(home.resolve("checkout"), home.resolve("local-cache"), home.resolve("compiles.log"),
        home.resolve("ar.log"));
  }

  static KernelBuildRequest request(Runner runner, Path tools, RemoteCache.Settings remote, int batchSize,
      boolean cuda) {
    Path project = runner.project();
    ToolchainConfig toolchain = new ToolchainConfig(null, null, null, null, tools.resolve("count-ar").toString(),
        tools.resolve("count-launcher").toString(), null,
        Map.of("KA_COMPILES", runner.compiles().toString(), "KA_AR_CALLS", runner.arCalls().toString()));
    return KernelBuildRequest.builder(project, "shared").host(project.resolve("host"))
        .archive("k", project.resolve("kernels")).includeDirectories(project.resolve("include")).cFlags("-O1")
        .cxxFlags("-O1", "-std=c++17").cudaArchs(cuda ? "80" : "").toolchain(toolchain).jobs(2).batchSize(batchSize)
        .cache(runner.localCache(), 1L << 32).remoteCache(remote).exports("ka_*").build();
  }

  static RemoteCache.Settings remote(String url, String authorization, boolean push) {
    return new RemoteCache.Settings(url, authorization, "the test's credentials", push, Duration.ofSeconds(2),
        Duration.ofSeconds(2));
  }
}
