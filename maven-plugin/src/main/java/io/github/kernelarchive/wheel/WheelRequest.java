package io.github.kernelarchive.wheel;

import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;

/**
 * Everything the wheel stage takes, checked and mapped from the pom by the Mojo.
 *
 * @param project the project's folder: the wheel holds no file from outside it (a symbolic link out fails)
 * @param library the linked library, {@code target/kernel/libmha.so}
 * @param outputDirectory where the wheel is written ({@code target})
 * @param workDirectory scratch space for the library's wheel copy ({@code target/kernel/wheel})
 * @param name the distribution's name as given; {@code version} already in PEP 440 form
 * @param importPackage the folder inside the wheel that holds the library ({@code mha}, or {@code a/b})
 * @param extension non-null when the library is a CPython extension module
 * @param pythonSources Python files put at the wheel's root ({@code src/main/python}); may not exist
 * @param headers public headers put into {@code <package>/include}, or null
 * @param cudaStub whether the CUDA runtime is reached through a stub: the RPATH then also names the
 *     folders of both CUDA runtime wheels, so whichever is installed loads
 * @param vendored SONAMEs of needed libraries copied into the wheel ({@code <package>.libs/}) rather than required
 * @param maxManylinux the newest policy allowed, or null
 * @param glibcTarget the glibc the build held the library to ({@code kernel.glibc}), or null: the tag claims no
 *     older policy
 * @param generator {@code kernel-archive-maven-plugin 0.1.0}
 */
public record WheelRequest(Path project, Path library, Path outputDirectory, Path workDirectory, String name, String version,
    String importPackage, Extension extension, Path pythonSources, Path headers, Metadata metadata,
    List<DeclaredDependency> dependencies, List<String> vendored, boolean cudaStub, String maxManylinux, String glibcTarget, FileTime time,
    String generator) {

  /**
   * The library as a CPython extension module.
   *
   * @param module the module's name: the library exports {@code PyInit_<module>}
   * @param suffix {@code .abi3.so} with the limited API, else the interpreter's {@code EXT_SUFFIX}
   * @param pythonTag {@code cp39}, {@code cp311}
   * @param abiTag {@code abi3} or {@code cp311}
   */
  public record Extension(String module, String suffix, String pythonTag, String abiTag) {}

  /**
   * The core metadata fields from the pom.
   *
   * @param extras extra name to the requirements it adds ({@code cu13} to {@code nvidia-cuda-runtime>=13,<14})
   */
  public record Metadata(String summary, String license, List<String> projectUrls, String requiresPython,
      List<String> requires, Map<String, List<String>> extras) {
    public Metadata {
      projectUrls = List.copyOf(projectUrls);
      requires = List.copyOf(requires);
      extras = Map.copyOf(extras);
    }
  }

  public WheelRequest {
    dependencies = List.copyOf(dependencies);
    vendored = List.copyOf(vendored);
  }
}
