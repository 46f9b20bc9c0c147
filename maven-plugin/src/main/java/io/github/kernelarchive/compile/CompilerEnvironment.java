package io.github.kernelarchive.compile;

import io.github.kernelarchive.scan.Language;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The environment variables that can change what a compiler writes, which therefore belong to a
 * compile's key: those each compiler is documented to read, with the values the compiler runs
 * with (the build's environment with the pom's {@code <environment>} over it), as ccache and
 * sccache key them. Not every variable of {@code <environment>}: a tool's bookkeeping there (a
 * launcher's log or cache folder, per machine) would split the shared cache for nothing. Variables
 * no compiler reads stay out, so they never cost a rebuild. docs/cache.md lists them.
 */
public final class CompilerEnvironment {
  /** Read by gcc and clang, and so also by nvcc's and hipcc's host compilation. */
  static final List<String> C_FAMILY = List.of("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
      "COMPILER_PATH", "GCC_EXEC_PREFIX", "SOURCE_DATE_EPOCH", "GCC_COMPARE_DEBUG", "CCC_OVERRIDE_OPTIONS");
  /** nvcc's own. */
  static final List<String> NVCC = List.of("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN");
  /** hipcc's own (its Perl and its binary versions). */
  static final List<String> HIPCC = List.of("HIP_PLATFORM", "HIP_PATH", "ROCM_PATH", "HIP_CLANG_PATH",
      "HIP_DEVICE_LIB_PATH", "DEVICE_LIB_PATH", "HIP_COMPILER", "HIP_RUNTIME", "HIPCC_COMPILE_FLAGS_APPEND",
      "HIPCC_COMPILE_FLAGS_PREPEND", "HIPCC_VERBOSE");

  private CompilerEnvironment() {}

  /**
   * @param effective what the compiler runs with: the build's environment with {@code <environment>} over it
   * @return the variables of the key with their values, sorted
   */
  public static Map<String, String> forKey(Language language, Map<String, String> effective) {
    Map<String, String> key = new TreeMap<>();
    for (String name : read(language)) {
      String value = effective.get(name);
      if (value != null) {
        key.put(name, value);
      }
    }
    return key;
  }

  /** The variables {@code language}'s compiler reads from the build's environment. */
  public static List<String> read(Language language) {
    return switch (language) {
      case CUDA -> concat(C_FAMILY, NVCC);
      case HIP -> concat(C_FAMILY, HIPCC);
      default -> C_FAMILY;
    };
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }
}
