package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.bundle.KernelDependency;
import io.github.kernelarchive.cache.CacheSettings;
import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.compile.ClusterSettings;
import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.deps.DependencySettings;
import io.github.kernelarchive.deps.NativeDependency;
import io.github.kernelarchive.link.CudaRuntime;
import io.github.kernelarchive.link.LinkSettings;
import io.github.kernelarchive.link.SymbolVersion;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.scan.Sources;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.Platform;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One build, fully described, in the groups the stages take: the Mojo fills it from the pom,
 * tests build it by name ({@link #builder}).
 */
public record KernelBuildRequest(
    Project project,
    Sources sources,
    CompileOptions compile,
    ToolchainConfig toolchain,
    Parallelism parallelism,
    CacheSettings cache,
    LinkSettings link,
    DependencySettings dependencies) {

  /**
   * @param directory the directory compilers run in
   * @param outputDirectory {@code target/kernel}: objects, state, archives, the library
   * @param libraryName {@code mha} for {@code libmha.so}
   * @param platform the classifier of the platform built for ({@code linux-x86_64}): bundles name it
   */
  public record Project(Path directory, Path outputDirectory, String libraryName, String platform) {}

  /**
   * @param jobs parallel compile jobs; 0: what the compile farm in the launcher offers ({@code distcc -j}),
   *     else the local cores
   * @param batchSize objects per {@code ar} invocation; 0: the archiver's default (llvm-ar: 2000 or more, one
   *     batch per job; GNU ar: 400)
   * @param cluster the Slurm cluster compiles run on; {@code null}: none
   */
  public record Parallelism(int jobs, int batchSize, ClusterSettings cluster) {}

  public static Builder builder(Path projectDirectory, String libraryName) {
    return new Builder(projectDirectory, libraryName);
  }

  /**
   * Builds a request by name, with the Mojo's defaults: output in {@code target/kernel}, archives
   * linked privately (archive members compiled with hidden visibility), the static CUDA runtime, no
   * cache, no dependencies, and the library's name alone as its symbol version node.
   */
  public static final class Builder {
    private final Path project;
    private final String libraryName;
    private Path outputDirectory;
    private final List<SourceSet> sources = new ArrayList<>();
    private final List<SourceSet> objects = new ArrayList<>();
    private final List<String> archives = new ArrayList<>();
    private List<Path> includeDirectories = List.of();
    private List<String> defines = List.of();
    private List<String> cFlags = List.of();
    private List<String> cxxFlags = List.of();
    private List<String> cudaFlags = List.of();
    private String cudaArchs = "";
    private boolean relocatableDeviceCode;
    private String hipArchs = "";
    private ToolchainConfig toolchain = ToolchainConfig.defaults();
    private int jobs;
    private int batchSize;
    private ClusterSettings cluster;
    private CacheSettings cache = CacheSettings.OFF;
    private List<String> exports = List.of();
    private List<String> linkFlags = List.of();
    private boolean privateArchives = true;
    private CudaRuntime cudaRuntime = CudaRuntime.STATIC;
    private String symbolVersion;
    private DependencySettings dependencies = DependencySettings.NONE;

    private Builder(Path project, String libraryName) {
      this.project = project;
      this.libraryName = libraryName;
      this.outputDirectory = project.resolve("target/kernel");
    }

    public Builder outputDirectory(Path directory) {
      outputDirectory = directory;
      return this;
    }

    /** Host sources: every source under {@code directory}. */
    public Builder host(Path directory) {
      return sources(new SourceSet(SourceSet.HOST, directory, List.of(), List.of()));
    }

    /** Sources of the archive {@code name}: every source under {@code directory}. */
    public Builder archive(String name, Path directory) {
      return sources(new SourceSet(name, directory, List.of(), List.of()));
    }

    /** Prebuilt objects of the archive {@code name}: every {@code .o} under {@code directory}. */
    public Builder archiveObjects(String name, Path directory) {
      declare(name);
      objects.add(new SourceSet(name, directory, List.of(), List.of()));
      return this;
    }

    /** A source set as given (with includes or excludes); one of an archive declares the archive. */
    public Builder sources(SourceSet set) {
      declare(set.unit());
      sources.add(set);
      return this;
    }

    private void declare(String unit) {
      if (!unit.equals(SourceSet.HOST) && !archives.contains(unit)) {
        archives.add(unit);
      }
    }

    public Builder includeDirectories(Path... directories) {
      includeDirectories = List.of(directories);
      return this;
    }

    public Builder defines(String... values) {
      defines = List.of(values);
      return this;
    }

    public Builder cFlags(String... flags) {
      cFlags = List.of(flags);
      return this;
    }

    public Builder cxxFlags(String... flags) {
      cxxFlags = List.of(flags);
      return this;
    }

    public Builder cudaFlags(String... flags) {
      cudaFlags = List.of(flags);
      return this;
    }

    public Builder cudaArchs(String archs) {
      cudaArchs = archs;
      return this;
    }

    public Builder relocatableDeviceCode(boolean on) {
      relocatableDeviceCode = on;
      return this;
    }

    public Builder hipArchs(String archs) {
      hipArchs = archs;
      return this;
    }

    public Builder toolchain(ToolchainConfig config) {
      toolchain = config;
      return this;
    }

    /** {@code kernel.linker}: a shorthand for a toolchain that names only the linker. */
    public Builder linker(String linker) {
      return toolchain(new ToolchainConfig(null, null, null, null, null, null, linker, java.util.Map.of()));
    }

    public Builder jobs(int value) {
      jobs = value;
      return this;
    }

    public Builder batchSize(int value) {
      batchSize = value;
      return this;
    }

    /** Compiles on a Slurm cluster. */
    public Builder cluster(ClusterSettings value) {
      cluster = value;
      return this;
    }

    /** The local cache in {@code directory}, capped at {@code maxBytes}, without a remote tier. */
    public Builder cache(Path directory, long maxBytes) {
      return cache(new CacheSettings(directory, maxBytes, null));
    }

    public Builder cache(CacheSettings settings) {
      cache = settings;
      return this;
    }

    public Builder remoteCache(RemoteCache.Settings remote) {
      cache = new CacheSettings(cache.directory(), cache.maxBytes(), remote);
      return this;
    }

    public Builder exports(String... patterns) {
      exports = List.of(patterns);
      return this;
    }

    public Builder linkFlags(String... flags) {
      linkFlags = List.of(flags);
      return this;
    }

    /** {@code kernel.staticLink}: false gives one plain shared library per archive. */
    public Builder privateArchives(boolean on) {
      privateArchives = on;
      return this;
    }

    public Builder cudaRuntime(CudaRuntime runtime) {
      cudaRuntime = runtime;
      return this;
    }

    public Builder symbolVersion(String node) {
      symbolVersion = node;
      return this;
    }

    public Builder dependencies(NativeDependency... list) {
      dependencies = new DependencySettings(List.of(list), dependencies.root(), dependencies.sitePackages(),
          dependencies.kernels());
      return this;
    }

    /** Kernel bundles to link privately, nearest first. */
    public Builder kernels(KernelDependency... bundles) {
      dependencies = new DependencySettings(dependencies.dependencies(), dependencies.root(),
          dependencies.sitePackages(), List.of(bundles));
      return this;
    }

    public Builder dependencies(DependencySettings settings) {
      dependencies = settings;
      return this;
    }

    public KernelBuildRequest build() {
      CompileOptions compile = new CompileOptions(includeDirectories, defines, cFlags, cxxFlags, cudaFlags, List.of(),
          cudaArchs, relocatableDeviceCode, hipArchs, privateArchives, project);
      return new KernelBuildRequest(new Project(project, outputDirectory, libraryName, Platform.classifier()),
          new Sources(sources, objects, archives), compile, toolchain, new Parallelism(jobs, batchSize, cluster), cache,
          new LinkSettings(exports, linkFlags, privateArchives, cudaRuntime,
              symbolVersion != null ? symbolVersion : SymbolVersion.defaultFor(libraryName, null)),
          dependencies);
    }
  }
}
