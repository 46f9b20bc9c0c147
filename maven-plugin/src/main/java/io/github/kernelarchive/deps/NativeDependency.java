package io.github.kernelarchive.deps;

import java.nio.file.Path;
import java.util.List;

/**
 * A native library the kernels build against (NVSHMEM, a CUDA runtime wheel, ...).
 *
 * @param name lower-case name: {@code nvshmem} is looked up as {@code NVSHMEM_DIR}, {@code nvidia/nvshmem}, ...
 * @param libraries host libraries by link name ({@code nvshmem_host}), linked by the file found
 * @param deviceLibraries static device libraries ({@code nvshmem_device}) for {@code nvcc -dlink}
 * @param headers headers that must be found ({@code nvshmem.h})
 * @param optional when not found, drop the sources that need it instead of failing
 * @param sourcePatterns Ant patterns (relative to each source directory) of the sources that need it
 * @param includeDirectories configured include directories (the first rule), may be empty
 * @param libraryDirectories configured library directories (the first rule), may be empty
 * @param stub when not null, the library is reached through a lazy-loading stub instead of linked
 */
public record NativeDependency(String name, List<String> libraries, List<String> deviceLibraries, List<String> headers,
    boolean optional, List<String> sourcePatterns, List<Path> includeDirectories, List<Path> libraryDirectories,
    Stub stub) {

  /**
   * {@code <linkage>stub</linkage>}.
   *
   * @param sonames tried in order at run time; empty: the SONAME of the file found
   * @param missingResult what stubbed functions return when nothing loads; null: the built-in
   *     default of {@code cudart} or {@code nvrtc}
   * @param incompatible functions whose signature differs between the majors
   */
  public record Stub(List<String> sonames, Long missingResult, List<String> incompatible) {
    public Stub {
      sonames = List.copyOf(sonames);
      incompatible = List.copyOf(incompatible);
    }
  }

  public NativeDependency {
    libraries = List.copyOf(libraries);
    deviceLibraries = List.copyOf(deviceLibraries);
    headers = List.copyOf(headers);
    sourcePatterns = List.copyOf(sourcePatterns);
    includeDirectories = List.copyOf(includeDirectories);
    libraryDirectories = List.copyOf(libraryDirectories);
  }
}
