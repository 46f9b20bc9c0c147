package io.github.kernelarchive.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Generated test projects: one archive {@code k} of small C sources that include a shared header,
 * plus the request that builds it (cache and batch size chosen by the test).
 */
public final class Projects {
  private Projects() {}

  /** Writes {@code count} sources; source {@code i} includes {@code group<i % 4>.h}. */
  public static void generate(Path project, int count) throws IOException {
    Files.createDirectories(project.resolve("include"));
    for (int g = 0; g < 4; g++) {
      Files.writeString(project.resolve("include/group" + g + ".h"), "#define GROUP " + g + "\n");
    }
    for (int i = 0; i < count; i++) {
      Path source = project.resolve("kernels/d" + (i % 5) + "/k" + i + ".c");
      Files.createDirectories(source.getParent());
      Files.writeString(source, "#include \"group" + (i % 4) + ".h\"\n"
          + "__attribute__((visibility(\"default\"))) int kernel_" + i + "(void) { return GROUP + " + i + "; }\n");
    }
  }

  public static KernelBuildRequest request(Path project, Path cache, int batchSize) {
    return request(project, cache, batchSize, null);
  }

  /** @param linker {@code kernel.linker}; null for auto */
  public static KernelBuildRequest request(Path project, Path cache, int batchSize, String linker) {
    KernelBuildRequest.Builder request = KernelBuildRequest.builder(project, "k")
        .archive("k", project.resolve("kernels")).includeDirectories(project.resolve("include")).cFlags("-O1")
        .linker(linker).jobs(2).batchSize(batchSize);
    return (cache == null ? request : request.cache(cache, 1L << 30)).build();
  }
}
