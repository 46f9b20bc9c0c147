package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.link.LinkSettings;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The library built for sanitizers: its C and C++ code (the CPU code; nvcc and hipcc compile
 * device code no sanitizer of GCC's reads) and the test programs with {@code -fsanitize}, into a
 * folder beside the normal output ({@code target/kernel-sanitize}), which stays untouched.
 */
final class Sanitized {
  private Sanitized() {}

  /** The build request for the sanitized library. */
  static KernelBuildRequest request(KernelBuildRequest build, List<String> sanitizers) {
    KernelBuildRequest.Project project = build.project();
    Path output = project.outputDirectory().resolveSibling(project.outputDirectory().getFileName() + "-sanitize");
    CompileOptions compile = build.compile();
    List<String> flags = compileFlags(sanitizers);
    CompileOptions sanitized = new CompileOptions(compile.includeDirectories(), compile.defines(),
        plus(compile.cFlags(), flags), plus(compile.cxxFlags(), flags), compile.cudaFlags(), compile.hipFlags(),
        compile.cudaArchs(), compile.relocatableDeviceCode(), compile.hipArchs(), compile.hiddenVisibility(),
        compile.sourceRoot());
    LinkSettings link = build.link();
    LinkSettings sanitizedLink = new LinkSettings(link.exports(), plus(link.linkFlags(), linkFlags(sanitizers)),
        link.privateArchives(), link.cudaRuntime(), link.symbolVersion());
    return new KernelBuildRequest(new KernelBuildRequest.Project(project.directory(), output, project.libraryName(),
        project.platform()), build.sources(), sanitized, build.toolchain(), build.parallelism(), build.cache(),
        sanitizedLink, build.dependencies());
  }

  /**
   * {@code -fsanitize=...}, frame pointers for readable stacks, and no recovery: a sanitizer's
   * report then ends the program with a failing status instead of scrolling past.
   */
  static List<String> compileFlags(List<String> sanitizers) {
    if (sanitizers.isEmpty()) {
      return List.of();
    }
    return List.of("-fsanitize=" + String.join(",", sanitizers), "-fno-omit-frame-pointer", "-g",
        "-fno-sanitize-recover=all");
  }

  static List<String> linkFlags(List<String> sanitizers) {
    return sanitizers.isEmpty() ? List.of() : List.of("-fsanitize=" + String.join(",", sanitizers));
  }

  /**
   * Run-time options, unless the environment sets its own: UBSan prints the stack of what it
   * found; ASan's report names the source lines.
   */
  static Map<String, String> runtimeOptions(List<String> sanitizers, Map<String, String> environment) {
    Map<String, String> options = new HashMap<>();
    if (sanitizers.contains("undefined") && !environment.containsKey("UBSAN_OPTIONS")) {
      options.put("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1");
    }
    return options;
  }

  private static List<String> plus(List<String> first, List<String> more) {
    List<String> all = new ArrayList<>(first);
    all.addAll(more);
    return all;
  }
}
