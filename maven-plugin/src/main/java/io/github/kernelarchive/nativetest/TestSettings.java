package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.toolchain.TargetPlatform;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the user configured about the native tests.
 *
 * @param sources the folder whose files are test programs ({@code src/test/native}); its
 *     {@code support/} folder is compiled into every program
 * @param filter a glob over program names ({@code kernel.test}); {@code null}: every program
 * @param jobs programs run at once; 0: the cores
 * @param gpuJobs CUDA and HIP programs run at once (they share the GPU)
 * @param timeout per program; its process group is killed when it runs longer
 * @param whiteBox link against the archives, so tests may call what the library keeps private
 * @param sanitizers {@code address}, {@code undefined}, ...: the library's CPU code and the test
 *     programs built with them, in an output folder of their own; empty: none
 * @param computeSanitizer the compute-sanitizer tool for CUDA programs ({@code memcheck}); {@code null}: none
 * @param run false: compiled and linked, not run ({@code -DskipTests})
 * @param reportsDirectory where {@code TEST-<suite>.xml} goes
 * @param suite the report's suite name
 * @param environment added to every program's environment
 * @param linkFlags added to every program's link
 * @param platform what the programs are built for: another platform's run under its emulator
 */
public record TestSettings(Path sources, String filter, int jobs, int gpuJobs, Duration timeout, boolean whiteBox,
    List<String> sanitizers, String computeSanitizer, boolean run, Path reportsDirectory, String suite,
    Map<String, String> environment, List<String> linkFlags, TargetPlatform platform) {
  /** The sanitizers GCC and Clang build in and this goal knows how to read the reports of. */
  public static final List<String> KNOWN_SANITIZERS = List.of("address", "undefined", "leak");
  /** compute-sanitizer's tools. */
  public static final List<String> COMPUTE_SANITIZER_TOOLS = List.of("memcheck", "racecheck", "initcheck", "synccheck");

  public TestSettings {
    sanitizers = List.copyOf(sanitizers);
    environment = Map.copyOf(environment);
    linkFlags = List.copyOf(linkFlags);
  }
}
