package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.deps.NativeDependency;
import io.github.kernelarchive.link.SymbolVersion;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Path;
import java.util.List;

/**
 * One build, fully described: the Mojo fills it from the pom, tests construct it directly.
 *
 * @param projectDirectory the directory compilers run in
 * @param outputDirectory {@code target/kernel}: objects, state, archives, the library
 * @param libraryName {@code mha} for {@code libmha.so}
 * @param sourceSets host sources and the sources of each archive
 * @param objectSets prebuilt objects of archives (unit = archive name)
 * @param archiveNames every declared archive, in declaration order
 * @param batchSize objects per {@code ar} invocation; 0: the archiver's default (2000 for llvm-ar, 400 for GNU ar)
 * @param cacheDirectory the archive cache, {@code null} when disabled
 * @param cacheMaxBytes size cap of the cache (least recently used entries go first)
 * @param remoteCache the shared HTTP tier behind the local cache; {@code null}: none
 * @param exports symbol patterns of the public API
 * @param linkFlags extra flags for the final link
 * @param jobs parallel compile jobs; 0: what the compile farm in the launcher offers ({@code distcc -j}),
 *     else the local cores
 * @param staticLink archives linked privately into the one library; false: each archive becomes
 *     its own shared library that the main library depends on
 * @param dependencies native libraries to find and build against
 * @param dependencyRoot prefix of the distro and system directories searched for them ({@code /})
 * @param sitePackages extra Python site-packages directories searched for NVIDIA wheels
 * @param cudaRuntime how CUDA objects reach the runtime: {@code static} ({@code -lcudart_static}),
 *     {@code shared} ({@code NEEDED libcudart.so.N}) or {@code stub} (loaded on first use: 13, else 12)
 * @param symbolVersion the version node on the exports of the privately linked library
 *     ({@link SymbolVersion}; unused with {@code staticLink=false})
 */
public record KernelBuildRequest(
    Path projectDirectory,
    Path outputDirectory,
    String libraryName,
    List<SourceSet> sourceSets,
    List<SourceSet> objectSets,
    List<String> archiveNames,
    CompileOptions compileOptions,
    ToolchainConfig toolchain,
    List<String> exports,
    List<String> linkFlags,
    int jobs,
    int batchSize,
    Path cacheDirectory,
    long cacheMaxBytes,
    RemoteCache.Settings remoteCache,
    boolean staticLink,
    List<NativeDependency> dependencies,
    Path dependencyRoot,
    List<Path> sitePackages,
    String cudaRuntime,
    String symbolVersion) {

  /** A request with the static CUDA runtime, the default, and the library's name alone as its version node. */
  public KernelBuildRequest(Path projectDirectory, Path outputDirectory, String libraryName, List<SourceSet> sourceSets,
      List<SourceSet> objectSets, List<String> archiveNames, CompileOptions compileOptions, ToolchainConfig toolchain,
      List<String> exports, List<String> linkFlags, int jobs, int batchSize, Path cacheDirectory, long cacheMaxBytes,
      RemoteCache.Settings remoteCache, boolean staticLink, List<NativeDependency> dependencies, Path dependencyRoot,
      List<Path> sitePackages) {
    this(projectDirectory, outputDirectory, libraryName, sourceSets, objectSets, archiveNames, compileOptions, toolchain,
        exports, linkFlags, jobs, batchSize, cacheDirectory, cacheMaxBytes, remoteCache, staticLink, dependencies,
        dependencyRoot, sitePackages, "static", SymbolVersion.defaultFor(libraryName, null));
  }

  public KernelBuildRequest {
    sourceSets = List.copyOf(sourceSets);
    objectSets = List.copyOf(objectSets);
    archiveNames = List.copyOf(archiveNames);
    exports = List.copyOf(exports);
    linkFlags = List.copyOf(linkFlags);
    dependencies = List.copyOf(dependencies);
    sitePackages = List.copyOf(sitePackages);
  }
}
