package io.github.kernelarchive.compile;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything the user configured about compiling.
 *
 * @param includeDirectories {@code -I} for every language
 * @param defines {@code -D} for every language ({@code NAME} or {@code NAME=VALUE})
 * @param cFlags extra flags for {@code .c}
 * @param cxxFlags extra flags for {@code .cc/.cpp/.cxx}
 * @param cudaFlags extra nvcc flags for {@code .cu}
 * @param hipFlags extra hipcc flags for {@code .hip}
 * @param cudaArchs {@code kernel.cuda.archs}, e.g. {@code 80;90a;100+PTX}; empty when not set
 * @param relocatableDeviceCode nvcc {@code -rdc=true}
 * @param hipArchs {@code kernel.hip.archs}, e.g. {@code gfx90a;gfx942}; empty when not set
 * @param hiddenVisibility {@code -fvisibility=hidden} for archive members: on when archives are
 *     linked privately (host sources keep default visibility; {@code <exports>} decides)
 * @param sourceRoot mapped to {@code .} in debug info and {@code __FILE__}, so objects do not
 *     depend on where the project is checked out
 */
public record CompileOptions(
    List<Path> includeDirectories,
    List<String> defines,
    List<String> cFlags,
    List<String> cxxFlags,
    List<String> cudaFlags,
    List<String> hipFlags,
    String cudaArchs,
    boolean relocatableDeviceCode,
    String hipArchs,
    boolean hiddenVisibility,
    Path sourceRoot) {

  public CompileOptions {
    includeDirectories = List.copyOf(includeDirectories);
    defines = List.copyOf(defines);
    cFlags = List.copyOf(cFlags);
    cxxFlags = List.copyOf(cxxFlags);
    cudaFlags = List.copyOf(cudaFlags);
    hipFlags = List.copyOf(hipFlags);
    cudaArchs = cudaArchs == null ? "" : cudaArchs.trim();
    hipArchs = hipArchs == null ? "" : hipArchs.trim();
  }

  /** The same options with more include directories (from resolved native dependencies). */
  public CompileOptions withIncludeDirectories(List<Path> more) {
    List<Path> all = new java.util.ArrayList<>(includeDirectories);
    all.addAll(more);
    return new CompileOptions(all, defines, cFlags, cxxFlags, cudaFlags, hipFlags, cudaArchs, relocatableDeviceCode,
        hipArchs, hiddenVisibility, sourceRoot);
  }
}
