package io.github.kernelarchive.mojo;

import io.github.kernelarchive.bundle.KernelDependency;
import io.github.kernelarchive.cache.CacheSettings;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.ClusterSettings;
import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.deps.DependencySettings;
import io.github.kernelarchive.deps.NativeDependency;
import io.github.kernelarchive.link.CudaRuntime;
import io.github.kernelarchive.glibc.GlibcTarget;
import io.github.kernelarchive.link.LinkSettings;
import io.github.kernelarchive.link.SymbolVersion;
import io.github.kernelarchive.pipeline.BuildSummary;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.scan.Sources;
import io.github.kernelarchive.toolchain.JniHeaders;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.wheel.PythonInterpreter;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.plugin.MojoExecution;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.settings.Settings;
import org.apache.maven.settings.crypto.SettingsDecrypter;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;

/**
 * Compiles the kernel sources and links {@code lib<library>.so}, attached to the project with a
 * platform classifier. Bound to {@code compile} so the library exists before the test phase.
 */
@Mojo(name = "build", defaultPhase = LifecyclePhase.COMPILE, threadSafe = true,
    requiresDependencyResolution = ResolutionScope.COMPILE)
public class BuildMojo extends KernelMojo {

  /** Resolves the platform bundles of {@code <type>kernel</type>} dependencies: reactor, local, remote, as Maven does. */
  @Component
  private RepositorySystem repositorySystem;

  /** Library name: {@code mha} produces {@code libmha.so}. */
  @Parameter(property = "kernel.library", defaultValue = "${project.artifactId}")
  private String library;

  /** Host sources linked directly into the library. Default: {@code src/main/native} when it exists. */
  @Parameter
  private SourcesConfig sources;

  /** Named groups of kernel sources. */
  @Parameter
  private List<ArchiveConfig> archives = new ArrayList<>();

  /** {@code -I} directories for every language. */
  @Parameter
  private List<File> includeDirectories = new ArrayList<>();

  /** {@code -D} definitions ({@code NAME} or {@code NAME=VALUE}) for every language. */
  @Parameter
  private List<String> defines = new ArrayList<>();

  /** Flags for {@code .c} sources (gcc or clang), e.g. {@code -O2}. */
  @Parameter
  private List<String> cFlags = new ArrayList<>();

  /**
   * Flags for {@code .cc}, {@code .cpp} and {@code .cxx} sources only. nvcc takes its own,
   * {@code <cuda><flags>} (a flag for its host compiler there as {@code -Xcompiler=-march=native}),
   * and hipcc {@code <hip><flags>}: the two compilers accept different flags.
   */
  @Parameter
  private List<String> cxxFlags = new ArrayList<>();

  /**
   * CUDA ({@code .cu} sources, compiled by nvcc): {@code <archs>} (targets such as {@code 80;90a}),
   * {@code <flags>} (nvcc's own, e.g. {@code -O3}, {@code -std=c++17}), {@code <relocatableDeviceCode>}
   * ({@code -rdc=true} and a device link) and {@code <nvcc>} (the compiler to use, or {@code none}).
   */
  @Parameter
  private CudaConfig cuda = new CudaConfig();

  /**
   * HIP ({@code .hip} sources, compiled by hipcc): {@code <archs>} (targets such as
   * {@code gfx90a;gfx942}), {@code <flags>} (hipcc's own) and {@code <hipcc>} (the compiler to use).
   */
  @Parameter
  private HipConfig hip = new HipConfig();

  /** CUDA targets like {@code 80;90a;100+PTX}; overrides {@code <cuda><archs>}. */
  @Parameter(property = "kernel.cuda.archs")
  private String cudaArchs;

  /**
   * nvcc to use; overrides {@code <cuda><nvcc>}. Default, first found: {@code CUDACXX},
   * {@code $CUDA_HOME/bin/nvcc}, {@code $CUDA_PATH/bin/nvcc}, {@code PATH}, {@code /usr/local/cuda/bin/nvcc}.
   */
  @Parameter(property = "kernel.cuda.nvcc")
  private String cudaNvcc;

  /**
   * How CUDA objects reach the CUDA runtime, as CMake's CUDA_RUNTIME_LIBRARY: {@code static}
   * ({@code -lcudart_static}, no NEEDED), {@code shared} (NEEDED {@code libcudart.so.N}) or
   * {@code stub} (no NEEDED; loads libcudart.so.N, else N-1, on first use, reusing a loaded copy).
   */
  @Parameter(property = "kernel.cuda.runtime", defaultValue = "static")
  private String cudaRuntime;

  /** AMD targets like {@code gfx90a;gfx942}; overrides {@code <hip><archs>}. */
  @Parameter(property = "kernel.hip.archs")
  private String hipArchs;

  /** hipcc to use; overrides {@code <hip><hipcc>}. */
  @Parameter(property = "kernel.hip.hipcc")
  private String hipHipcc;

  /** C compiler. Default: {@code CC} from the environment, else {@code cc}. */
  @Parameter(property = "kernel.cc")
  private String cc;

  /** C++ compiler, also nvcc's host compiler and the linker driver. Default: {@code CXX}, else {@code c++}. */
  @Parameter(property = "kernel.cxx")
  private String cxx;

  /**
   * Linker for the final link: {@code auto} (mold, else lld, else gold, else the driver's default),
   * {@code bfd}, {@code gold}, {@code lld}, {@code mold}, or the path of an {@code ld.<name>}.
   */
  @Parameter(property = "kernel.linker", defaultValue = "auto")
  private String linker;

  /** Compiler launcher such as {@code ccache}, {@code sccache} or {@code distcc}. */
  @Parameter(property = "kernel.launcher")
  private String launcher;

  /**
   * Parallel compile jobs. Default: the number of processors; with distcc in the launcher, the
   * slots of its hosts ({@code distcc -j}). May exceed the local cores when a compile farm takes
   * the work: jobs that run locally (nvcc, hipcc, archiving) still keep to the local cores.
   */
  @Parameter(property = "kernel.jobs")
  private Integer jobs;

  /** Environment variables for every tool the build runs. */
  @Parameter
  private Map<String, String> environment = new HashMap<>();

  /** Public API symbol patterns; every other symbol stays private. Empty: export all visible symbols. */
  @Parameter
  private List<String> exports = new ArrayList<>();

  /** Which execution this is: a second one in a folder of its own does not attach the main classifier. */
  @Parameter(defaultValue = "${mojoExecution}", readonly = true)
  protected MojoExecution mojoExecution;

  /**
   * Symbol version node of the exports when linked privately, so that what links against this
   * library's ABI binds its symbols even where another ABI of the library was loaded first. Default:
   * {@code <LIBRARY>_<major version>}, e.g. {@code KV_2} for 2.1.0 ({@code KV_0.3} for 0.3.1). Set
   * it to declare an ABI break within a major version, or to keep one across a major release.
   */
  @Parameter(property = "kernel.symbolVersion")
  private String symbolVersion;

  /**
   * The library has JNI functions: compiled against the JDK's {@code include/jni.h} (Maven's JDK, or
   * {@code JAVA_HOME}'s), and {@code Java_*}, {@code JNI_OnLoad} and {@code JNI_OnUnload} exported
   * beside {@code <exports>}.
   */
  @Parameter(property = "kernel.jni", defaultValue = "false")
  private boolean jni;

  /**
   * The oldest glibc the library must load on, e.g. {@code 2.17} (RHEL 7, manylinux2014) or
   * {@code 2.28} (RHEL 8): every glibc symbol it needs is bound to the version of that release,
   * from any build host (docs/glibc.md). Unset: whatever the build host's glibc gives.
   */
  @Parameter(property = "kernel.glibc")
  private String glibc;

  /**
   * Link libstdc++ and libgcc statically and privately: the library then needs no GLIBCXX_ or
   * CXXABI_ version of the system, and exports nothing of them. Default: on when {@code kernel.glibc}
   * is set (an older system has an older libstdc++ too), off otherwise.
   */
  @Parameter(property = "kernel.staticRuntime")
  private Boolean staticRuntime;

  /**
   * {@code <type>kernel</type>} dependencies to link as their shared library ({@code groupId:artifactId}
   * or {@code artifactId}): NEEDED by SONAME, copied beside this library, found through
   * {@code $ORIGIN}. The others are linked privately from their archives (the default).
   */
  @Parameter
  private List<String> sharedKernels = new ArrayList<>();

  /** Extra flags for the final link. */
  @Parameter
  private List<String> linkFlags = new ArrayList<>();

  /**
   * {@code true}: archives are linked privately (whole, hidden) into the one library. {@code false}:
   * each archive becomes {@code lib<archive>.so} with default visibility and the library depends on
   * it: the old layout, open to symbol clashes with other copies of the kernels, kept for fast iteration.
   */
  @Parameter(property = "kernel.staticLink", defaultValue = "true")
  private boolean staticLink;

  /**
   * Objects per {@code ar} invocation (one response file each); does not change the archive's
   * bytes. Default with {@code llvm-ar} (whose start costs more than its members): the members
   * divided among the local jobs, rounded up to a multiple of 2000; with GNU {@code ar} (whose time
   * per member grows with the batch): 400.
   */
  @Parameter(property = "kernel.batchSize")
  private Integer batchSize;

  /** Archiver. Default: {@code llvm-ar} when installed, else GNU {@code ar}. */
  @Parameter(property = "kernel.ar")
  private String ar;

  /**
   * Runs compiles on a Slurm cluster whose nodes share this file system: {@code srun}, with any
   * options ({@code srun --partition=build}). It takes the nvcc and hipcc compiles, and all compiles
   * when {@code kernel.launcher} names no C/C++ farm. Default: none.
   */
  @Parameter(property = "kernel.cluster.launcher")
  private String clusterLauncher;

  /** CPUs each cluster compile asks for ({@code --cpus-per-task}; a multi-arch nvcc compile uses them as threads). */
  @Parameter(property = "kernel.cluster.cpusPerJob", defaultValue = "1")
  private int clusterCpusPerJob;

  /** Seconds one srun may take before it is killed and its compile done here. */
  @Parameter(property = "kernel.cluster.timeout", defaultValue = "3600")
  private int clusterTimeout;

  /** Local cache. Default: {@code $XDG_CACHE_HOME/kernel-archive}, else {@code $HOME/.cache/kernel-archive}. */
  @Parameter(property = "kernel.cache.dir")
  private File cacheDirectory;

  /** Whether the cache (local and remote tiers) is used. */
  @Parameter(property = "kernel.cache.enabled", defaultValue = "true")
  private boolean cacheEnabled;

  /** Size cap of the cache, e.g. {@code 10G} or {@code 500M}; least recently used entries are evicted. */
  @Parameter(property = "kernel.cache.maxSize", defaultValue = "10G")
  private String cacheMaxSize;

  /**
   * Base URL of a shared cache spoken to with plain {@code GET}/{@code PUT} (nginx WebDAV, bazel-remote,
   * an object store behind a proxy), behind the local cache. None: local cache only.
   */
  @Parameter(property = "kernel.cache.remote.url")
  private String cacheRemoteUrl;

  /** Whether this build uploads its new entries; {@code false} for untrusted builds (pull requests). */
  @Parameter(property = "kernel.cache.remote.push", defaultValue = "true")
  private boolean cacheRemotePush;

  /** The settings.xml {@code <server>} whose credentials the remote cache gets. */
  @Parameter(property = "kernel.cache.remote.serverId", defaultValue = "kernel-cache")
  private String cacheRemoteServerId;

  /** Seconds to open a connection to the remote cache. */
  @Parameter(property = "kernel.cache.remote.connectTimeout", defaultValue = "5")
  private int cacheRemoteConnectTimeout;

  /** Seconds the remote cache may keep silent (no answer, or no more bytes of a body). */
  @Parameter(property = "kernel.cache.remote.readTimeout", defaultValue = "30")
  private int cacheRemoteReadTimeout;

  @Parameter(defaultValue = "${session}", readonly = true, required = true)
  private MavenSession session;

  @Parameter(defaultValue = "${settings}", readonly = true)
  private Settings settings;

  @Component
  private SettingsDecrypter settingsDecrypter;

  /**
   * Native libraries (NVSHMEM, CUDA runtime wheels, ...) found by configuration, NAME_INCLUDE_PATH /
   * NAME_LIBRARY_PATH, NAME_DIR, pip wheel layouts, then distro directories; linked by the file found.
   */
  @Parameter
  private List<DependencyConfig> dependencies = new ArrayList<>();

  /** Prefix of the distro and system directories searched for native dependencies. */
  @Parameter(property = "kernel.deps.root", defaultValue = "/")
  private File dependencyRoot;

  /** Extra Python site-packages directories searched for NVIDIA wheels. */
  @Parameter
  private List<File> sitePackages = new ArrayList<>();

  /**
   * The Python wheel (goal {@code wheel}); this goal reads {@code <module>} and {@code <limitedApi>}:
   * an extension module is compiled against Python's headers and exports {@code PyInit_<module>}.
   */
  @Parameter
  private WheelConfig wheel;

  /** The Python whose headers an extension module ({@code <wheel><module>}) is compiled against. */
  @Parameter(property = "kernel.python", defaultValue = "python3")
  private String python;

  @Override
  protected boolean reportsSkippedPlatforms() {
    return true;
  }

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    List<PlatformOutput> outputs = platformOutputs();
    for (PlatformOutput output : outputs) {
      if (outputs.size() > 1) {
        getLog().info("Platform " + output.platform() + " into " + output.outputDirectory());
      }
      build(output);
    }
  }

  private void build(PlatformOutput output) throws MojoExecutionException, MojoFailureException {
    Map<String, String> systemEnvironment = new HashMap<>(System.getenv());
    BuildSummary summary;
    try {
      summary = new KernelBuild(new MavenBuildLog(getLog()), systemEnvironment).run(request(output));
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (ToolchainException e) {
      throw new MojoExecutionException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Kernel build I/O failure: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MojoExecutionException("Kernel build interrupted", e);
    }
    if (!attachesTheMainLibrary()) {
      if (summary.library() != null) {
        getLog().info("Library " + summary.library() + " not attached: execution '" + mojoExecution.getExecutionId()
            + "' writes into " + outputDirectory + ", not the main output folder, and sets no <classifier>, so it"
            + " would replace the main library's attachment. Give it a <classifier> of its own to attach it.");
      }
      return;
    }
    if (summary.library() != null) {
      projectHelper.attachArtifact(project, "so", output.classifier(), summary.library().toFile());
    }
    for (Path archiveLibrary : summary.archiveLibraries()) {
      String name = archiveLibrary.getFileName().toString().replaceAll("^lib|\\.so$", "");
      projectHelper.attachArtifact(project, "so", output.classifier() + "-" + name, archiveLibrary.toFile());
    }
  }

  /**
   * Whether this execution's library is the one the platform classifier names: it has a classifier
   * of its own, or it is the packaging's or the only declared execution (ids {@code default-*},
   * {@code default}), or it writes into the main output folder. A second execution (a CPU-only or
   * stub-runtime variant in a folder of its own) is not, whatever order Maven runs them in.
   */
  private boolean attachesTheMainLibrary() {
    String id = mojoExecution == null ? "default" : mojoExecution.getExecutionId();
    return (classifier != null && !classifier.isBlank()) || id.equals("default") || id.startsWith("default-")
        || outputDirectory.toPath().toAbsolutePath().normalize().equals(
            Path.of(project.getBuild().getDirectory(), "kernel").toAbsolutePath().normalize());
  }

  /** {@code kernel.library}: {@code mha} for {@code libmha.so}. */
  String libraryName() {
    return library;
  }

  /** The pom's parameters as the engine's request, each group checked on its own. */
  KernelBuildRequest request(PlatformOutput output) throws MojoFailureException, ToolchainException {
    Path basedir = project.getBasedir().toPath();
    List<SourceSet> sets = new ArrayList<>();
    if (sources != null) {
      sets.add(sources.toSourceSet(SourceSet.HOST, "<sources>"));
    } else if (basedir.resolve("src/main/native").toFile().isDirectory()) {
      sets.add(new SourceSet(SourceSet.HOST, basedir.resolve("src/main/native"), List.of(), List.of()));
    }
    ArchiveSets.Result archiveSets = ArchiveSets.of(archives, basedir);
    sets.addAll(archiveSets.sources());
    List<Path> includes = new ArrayList<>(includeDirectories.stream().map(File::toPath).toList());
    List<String> allDefines = new ArrayList<>(defines);
    List<String> allExports = new ArrayList<>(exports);
    if (jni) {
      includes.addAll(JniHeaders.directories(System.getenv("JAVA_HOME"), System.getProperty("java.home")));
      allExports.addAll(JniHeaders.EXPORTS);
    }
    if (PythonModule.wanted(wheel) && output.platform().cross()) {
      throw new MojoFailureException("<wheel><module> makes a CPython extension module, compiled against the build"
          + " machine's Python headers; " + output.platform() + " would need its own. Build the extension module"
          + " on " + output.platform() + ", or use a ctypes wrapper (no <module>) for it.");
    }
    if (PythonModule.wanted(wheel)) {
      // An extension module: Python's headers (never its library: the interpreter provides the
      // symbols when it loads the module) and its init function beside the C API.
      includes.add(PythonInterpreter.probe(python, environment).include());
      String limited = PythonModule.limitedApiDefine(wheel);
      if (limited != null) {
        allDefines.add(limited);
      }
      allExports.add("PyInit_" + wheel.module);
    }
    CompileOptions options = new CompileOptions(includes, allDefines, cFlags, cxxFlags,
        cuda.flags, hip.flags, cudaArchs != null ? cudaArchs : cuda.archs, cuda.relocatableDeviceCode,
        hipArchs != null ? hipArchs : hip.archs, staticLink, basedir);
    ToolchainConfig toolchain = new ToolchainConfig(cc, cxx, cudaNvcc != null ? cudaNvcc : cuda.nvcc,
        hipHipcc != null ? hipHipcc : hip.hipcc, ar, launcher, linker, environment).forPlatform(output.platform());
    toolchain = withOwnTools(toolchain, toolchainOf(output.platform()));
    LinkSettings link = new LinkSettings(allExports, linkFlags, staticLink,
        Choice.of(CudaRuntime.class, cudaRuntime, "kernel.cuda.runtime"),
        symbolVersion != null ? symbolVersion : SymbolVersion.defaultFor(library, project.getVersion()));
    if (glibc != null && !glibc.isBlank()) {
      GlibcTarget target;
      try {
        target = GlibcTarget.parse(glibc, "kernel.glibc");
      } catch (IllegalArgumentException e) {
        throw new MojoFailureException(e.getMessage(), e);
      }
      link = link.forTarget(target, staticRuntime == null || staticRuntime);
    } else if (Boolean.TRUE.equals(staticRuntime)) {
      link = link.forTarget(null, true);
    }
    return new KernelBuildRequest(new KernelBuildRequest.Project(basedir, output.outputDirectory().toPath(), library,
        output.classifier()),
        new Sources(sets, archiveSets.objects(), archiveSets.names()), options, toolchain, parallelism(), cache(),
        link, new DependencySettings(nativeDependencies(), dependencyRoot.toPath(),
            sitePackages.stream().map(File::toPath).toList(), kernelDependencies(output.classifier())));
  }

  /** {@code toolchain} with what {@code own}, the platform's {@code <toolchain>}, sets in place of the rest. */
  private static ToolchainConfig withOwnTools(ToolchainConfig toolchain, PlatformToolchain own) {
    if (own == null) {
      return toolchain;
    }
    return new ToolchainConfig(either(own.cc, toolchain.cc()), either(own.cxx, toolchain.cxx()),
        either(own.nvcc, toolchain.nvcc()), toolchain.hipcc(), either(own.ar, toolchain.ar()),
        either(own.launcher, toolchain.launcher()), either(own.linker, toolchain.linker()), toolchain.environment(),
        toolchain.platform());
  }

  private static String either(String own, String common) {
    return own != null && !own.isBlank() ? own.trim() : common;
  }

  /** {@code kernel.jobs} and {@code kernel.batchSize}; 0 where not set (the engine then decides). */
  private KernelBuildRequest.Parallelism parallelism() throws MojoFailureException {
    if (jobs != null && jobs < 1) {
      throw new MojoFailureException("kernel.jobs must be at least 1, was " + jobs + ".");
    }
    if (batchSize != null && batchSize < 1) {
      throw new MojoFailureException("kernel.batchSize must be at least 1, was " + batchSize + "; leave it out for"
          + " the archiver's default (with llvm-ar 2000 or more, so that each job has one batch; 400 with GNU ar).");
    }
    return new KernelBuildRequest.Parallelism(jobs != null ? jobs : 0, batchSize != null ? batchSize : 0, cluster());
  }

  /** {@code kernel.cluster.*}: the Slurm launcher, or null when none is configured. */
  private ClusterSettings cluster() throws MojoFailureException {
    if (clusterLauncher == null || clusterLauncher.isBlank() || clusterLauncher.trim().equals("none")) {
      return null;
    }
    if (clusterCpusPerJob < 1) {
      throw new MojoFailureException("kernel.cluster.cpusPerJob must be at least 1, was " + clusterCpusPerJob + ".");
    }
    if (clusterTimeout < 1) {
      throw new MojoFailureException("kernel.cluster.timeout must be at least 1 (seconds), was " + clusterTimeout + ".");
    }
    List<String> words = List.of(clusterLauncher.trim().split("\\s+"));
    if (!Path.of(words.get(0)).getFileName().toString().equals("srun")) {
      throw new MojoFailureException("kernel.cluster.launcher is '" + clusterLauncher + "': it must start with srun"
          + " (e.g. -Dkernel.cluster.launcher=srun or \"srun --partition=build\"); compile launchers such as ccache"
          + " or distcc go to kernel.launcher.");
    }
    return new ClusterSettings(words, clusterCpusPerJob, java.time.Duration.ofSeconds(clusterTimeout));
  }

  /** Off with {@code kernel.cache.enabled=false}; the remote tier only when a URL is set (and not offline). */
  private CacheSettings cache() throws MojoFailureException {
    if (!cacheEnabled) {
      return CacheSettings.OFF;
    }
    return new CacheSettings(cacheRoot(), CacheSize.parse(cacheMaxSize), RemoteCacheConfig.settings(cacheRemoteUrl,
        cacheRemotePush, cacheRemoteServerId, cacheRemoteConnectTimeout, cacheRemoteReadTimeout, session.isOffline(),
        settings, settingsDecrypter, getLog()));
  }

  private List<NativeDependency> nativeDependencies() throws MojoFailureException {
    List<NativeDependency> result = new ArrayList<>();
    for (DependencyConfig d : dependencies) {
      if (d.name == null || d.name.isBlank()) {
        throw new MojoFailureException("Every <dependency> needs a <name> (e.g. nvshmem: looked up as NVSHMEM_DIR, ...).");
      }
      DependencyConfig.Linkage linkage = Choice.of(DependencyConfig.Linkage.class, d.linkage,
          "<dependency> '" + d.name + "' <linkage>");
      NativeDependency.Stub stub = linkage == DependencyConfig.Linkage.STUB
          ? new NativeDependency.Stub(d.sonames, d.missingResult, d.incompatible) : null;
      result.add(new NativeDependency(d.name, d.libraries, d.deviceLibraries, d.headers, d.optional, d.sources,
          d.includeDirectories.stream().map(File::toPath).toList(), d.libraryDirectories.stream().map(File::toPath).toList(),
          stub));
    }
    return result;
  }

  /**
   * The platform bundle of every {@code <type>kernel</type>} dependency, direct or transitive (as
   * Maven mediated them: nearest wins), through Maven's resolver, so the reactor, the local and
   * remote repositories, offline mode, mirrors and servers apply as for any artifact. A
   * dependency's own classifier names the platform; without one, this build's.
   */
  private List<KernelDependency> kernelDependencies(String classifier) throws MojoFailureException {
    List<KernelDependency> kernels = new ArrayList<>();
    List<String> unmatched = new ArrayList<>(sharedKernels);
    for (Artifact dependency : project.getArtifacts()) {
      if (!"kernel".equals(dependency.getType())) {
        continue;
      }
      String id = dependency.getGroupId() + ":" + dependency.getArtifactId();
      boolean shared = sharedKernels.contains(id) || sharedKernels.contains(dependency.getArtifactId());
      unmatched.remove(id);
      unmatched.remove(dependency.getArtifactId());
      String platform = dependency.hasClassifier() ? dependency.getClassifier() : classifier;
      DefaultArtifact bundle = new DefaultArtifact(dependency.getGroupId(), dependency.getArtifactId(), platform,
          "kernel", dependency.getBaseVersion());
      String coordinates = dependency.getGroupId() + ":" + dependency.getArtifactId() + ":" + dependency.getBaseVersion();
      try {
        File file = repositorySystem.resolveArtifact(session.getRepositorySession(),
            new ArtifactRequest(bundle, project.getRemoteProjectRepositories(), null)).getArtifact().getFile();
        kernels.add(new KernelDependency(coordinates, dependency.getGroupId() + "." + dependency.getArtifactId(),
            file.toPath(), shared));
      } catch (ArtifactResolutionException e) {
        throw new MojoFailureException("Kernel dependency " + coordinates + " has no bundle for this platform:"
            + " looked for " + bundle + " (classifier " + platform + ") in the reactor and the repositories"
            + availableBeside(dependency) + ". Build and deploy it on " + platform + ", or set kernel.classifier"
            + " to a platform it was built for. (" + e.getMessage() + ")", e);
      }
    }
    if (!unmatched.isEmpty()) {
      throw new MojoFailureException("<sharedKernels> names " + String.join(", ", unmatched) + ", which is no"
          + " <type>kernel</type> dependency of this project. Use groupId:artifactId of one, or remove it.");
    }
    return kernels;
  }

  /**
   * The platforms whose bundles lie beside the dependency's main artifact (in the local repository,
   * or in the producer's target folder in a reactor), as ", found there: linux-aarch64"; empty when none.
   */
  private static String availableBeside(Artifact dependency) {
    File main = dependency.getFile();
    File[] siblings = main == null || main.getParentFile() == null ? null : main.getParentFile().listFiles();
    if (siblings == null) {
      return "";
    }
    String prefix = dependency.getArtifactId() + "-" + dependency.getVersion() + "-";
    List<String> platforms = new ArrayList<>();
    for (File sibling : siblings) {
      String name = sibling.getName();
      if (name.startsWith(prefix) && name.endsWith(".kernel")) {
        platforms.add(name.substring(prefix.length(), name.length() - ".kernel".length()));
      }
    }
    platforms.sort(null);
    return platforms.isEmpty() ? "" : "; bundles found beside " + main.getName() + ": " + String.join(", ", platforms);
  }

  private Path cacheRoot() {
    if (cacheDirectory != null) {
      return cacheDirectory.toPath().toAbsolutePath();
    }
    // $HOME before Java's user.home (read from the password database): CI jobs that point HOME at
    // a cached or scratch folder expect the cache to follow it, as ccache's does.
    String xdg = System.getenv("XDG_CACHE_HOME");
    String home = System.getenv("HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg)
        : Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".cache");
    return base.resolve("kernel-archive");
  }
}
