package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the compiler for each language, once per build, and the launcher. A tool the user named
 * that does not exist is an error naming the parameter; an auto-detected GPU compiler that is
 * absent is reported as empty so its sources can be skipped (build machines without CUDA still
 * build the CPU part).
 */
public final class Toolchain {
  /** The compiler name that switches a GPU language off. */
  public static final String DISABLED = "none";

  private final ToolchainConfig config;
  private final Map<String, String> environment;
  private final ExecutableFinder finder;
  private final ProcessRunner runner;
  private final Map<Language, Optional<Tool>> compilers = new EnumMap<>(Language.class);
  private Tool archiver;
  private Linker linker;
  private final ToolVersions versions;

  public Toolchain(ToolchainConfig config, Map<String, String> systemEnvironment) {
    this(config, systemEnvironment, new ToolVersions(null));
  }

  /** @param versions the tools' {@code --version}, remembered between builds */
  public Toolchain(ToolchainConfig config, Map<String, String> systemEnvironment, ToolVersions versions) {
    this.versions = versions;
    this.config = config;
    this.environment = new HashMap<>(systemEnvironment);
    this.environment.putAll(config.environment());
    this.finder = new ExecutableFinder(environment.get("PATH"));
    this.runner = new ProcessRunner(config.environment());
  }

  public ProcessRunner runner() {
    return runner;
  }

  /** Keeps what was learnt of the tools' versions for the next build. */
  public void saveVersions() throws IOException {
    versions.save();
  }

  /** What every tool runs with: the build's environment with the pom's {@code <environment>} over it. */
  public Map<String, String> environment() {
    return java.util.Collections.unmodifiableMap(environment);
  }

  /** The compiler for {@code language}, or empty for an auto-detected GPU compiler that is not installed. */
  public synchronized Optional<Tool> compiler(Language language) throws ToolchainException {
    Optional<Tool> known = compilers.get(language);
    if (known == null) {
      known = locate(language);
      compilers.put(language, known);
    }
    return known;
  }

  /**
   * The archiver: the configured one, else {@code llvm-ar} (one pass, several times faster than
   * GNU ar on large archives), else GNU {@code ar}.
   */
  public synchronized Tool archiver() throws ToolchainException {
    if (archiver == null) {
      String name = config.ar();
      if (name == null) {
        name = finder.find("llvm-ar").isPresent() ? "llvm-ar" : "ar";
      }
      String chosen = name;
      Path path = finder.find(chosen).orElseThrow(() -> new ToolchainException("Archiver '" + chosen
          + "' does not exist or is not executable. Install binutils or llvm, or set <ar> (property kernel.ar)."));
      archiver = identify(path, "Archiver", "kernel.ar");
    }
    return archiver;
  }

  /**
   * Starts identifying the tools every build with a library needs (the archiver when there are
   * archives, the C++ driver and the linker) on a thread of its own, so their {@code --version}
   * runs, tens of milliseconds each and otherwise one after another in front of the stage that
   * needs them, overlap the scan and the archive stage. Stages still ask through {@link #archiver()},
   * {@link #compiler} and {@link #linker()}, which wait for a lookup in progress (they share this
   * object's lock) and report a failure themselves: one is dropped here, since a build may never
   * need the tool it concerns.
   *
   * @return the thread doing it, for the build to wait for before it ends
   */
  public Thread identifyAhead(boolean archives) {
    Thread thread = new Thread(() -> {
      try (Trace.Span span = Trace.current().span("identify tools", "toolchain")) {
        if (archives) {
          archiver();
        }
        compiler(Language.CXX);
        linker();
      } catch (ToolchainException | RuntimeException e) {
        // Reported by the stage that needs the tool, if one does.
      }
    }, "kernel-tool-lookup");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** The linker of the final link, chosen once per build ({@link LinkerSelection}). */
  public synchronized Linker linker() throws ToolchainException {
    if (linker == null) {
      linker = new LinkerSelection(finder, runner, versions, config.platform()).select(config.linker());
    }
    return linker;
  }

  /** The launcher argv prefix ({@code ccache}, {@code sccache --foo}), empty when none is configured. */
  public List<String> launcher() throws ToolchainException {
    if (config.launcher() == null || config.launcher().isBlank()) {
      return List.of();
    }
    List<String> words = new ArrayList<>(List.of(config.launcher().trim().split("\\s+")));
    Path executable = finder.find(words.get(0)).orElseThrow(() -> new ToolchainException(
        "Compiler launcher '" + words.get(0) + "' was not found on PATH. Install it or change"
            + " <launcher> (property kernel.launcher), e.g. -Dkernel.launcher=ccache."));
    words.set(0, executable.toString());
    return List.copyOf(words);
  }

  /** What the tools build for ({@link ToolchainConfig#platform}). */
  public TargetPlatform platform() {
    return config.platform();
  }

  private Optional<Tool> locate(Language language) throws ToolchainException {
    TargetPlatform platform = config.platform();
    if (platform.cross()) {
      return switch (language) {
        case C -> Optional.of(crossCompiler(config.cc(), "gcc", "C compiler"));
        case CXX -> Optional.of(crossCompiler(config.cxx(), "g++", "C++ compiler"));
        case CUDA -> gpuCompiler(config.nvcc(), "CUDA compiler", "<cuda><nvcc>", "kernel.cuda.nvcc",
            candidates(environment.get("CUDACXX"), bin("CUDA_HOME", "nvcc"), bin("CUDA_PATH", "nvcc"),
                "nvcc", "/usr/local/cuda/bin/nvcc"));
        case HIP -> throw new ToolchainException("HIP sources cannot be built for " + platform + ": hipcc builds for"
            + " the machine it runs on, and ROCm has no " + platform.triple() + " cross compiler. Leave "
            + platform + " out of kernel.platforms, or move the .hip sources to a module that builds for the host.");
      };
    }
    return switch (language) {
      case C -> Optional.of(required(config.cc(), "CC", "cc", "C compiler", "<cc>", "kernel.cc"));
      case CXX -> Optional.of(required(config.cxx(), "CXX", "c++", "C++ compiler", "<cxx>", "kernel.cxx"));
      case CUDA -> gpuCompiler(config.nvcc(), "CUDA compiler", "<cuda><nvcc>", "kernel.cuda.nvcc",
          candidates(environment.get("CUDACXX"), bin("CUDA_HOME", "nvcc"), bin("CUDA_PATH", "nvcc"),
              "nvcc", "/usr/local/cuda/bin/nvcc"));
      case HIP -> gpuCompiler(config.hipcc(), "HIP compiler", "<hip><hipcc>", "kernel.hip.hipcc",
          candidates(bin("HIP_PATH", "hipcc"), bin("ROCM_PATH", "hipcc"), "hipcc", "/opt/rocm/bin/hipcc"));
    };
  }

  /**
   * The cross compiler: the one configured for the platform, else {@code aarch64-linux-gnu-g++} by
   * the platform's triple, or an error naming its package.
   */
  private Tool crossCompiler(String configured, String name, String what) throws ToolchainException {
    TargetPlatform platform = config.platform();
    if (configured != null) {
      Path path = finder.find(configured).orElseThrow(() -> new ToolchainException(what + " for " + platform + " '"
          + configured + "' does not exist or is not executable. Fix <" + (name.equals("gcc") ? "cc" : "cxx")
          + "> of <toolchains><toolchain> for " + platform + ", or remove it to use " + platform.tool(name) + "."));
      return identify(path, what + " for " + platform, "<toolchains>");
    }
    String tool = platform.tool(name);
    Path path = finder.find(tool).orElseThrow(() -> new ToolchainException(what + " for " + platform + ", " + tool
        + ", is not installed. Install Debian's " + platform.compilerPackage() + " (and libc6-dev-"
        + (platform.triple().startsWith("aarch64") ? "arm64" : platform.triple()) + "-cross), or leave " + platform
        + " out of kernel.platforms."));
    return identify(path, what + " for " + platform, "kernel.platforms");
  }

  private Tool required(String configured, String envVariable, String fallback, String what,
      String element, String property) throws ToolchainException {
    String name = configured != null ? configured
        : environment.getOrDefault(envVariable, fallback);
    Path path = finder.find(name).orElseThrow(() -> new ToolchainException(
        what + " '" + name + "' does not exist or is not executable"
            + (configured == null ? " (from " + (environment.containsKey(envVariable) ? envVariable : "the default") + ")" : "")
            + ". Set " + element + " (property " + property + ") to an installed compiler, e.g. -D"
            + property + "=" + (fallback.equals("cc") ? "gcc" : "g++") + "."));
    return identify(path, what, property);
  }

  /**
   * True when the user switched a GPU language off by naming its compiler {@value #DISABLED}: a
   * CPU-only build on a machine that has the GPU toolkit installed.
   */
  public boolean disabled(Language language) {
    String configured = language == Language.CUDA ? config.nvcc()
        : language == Language.HIP ? config.hipcc() : null;
    return DISABLED.equals(configured);
  }

  private Optional<Tool> gpuCompiler(String configured, String what, String element, String property,
      List<String> candidates) throws ToolchainException {
    if (DISABLED.equals(configured)) {
      return Optional.empty();
    }
    if (configured != null) {
      Path path = finder.find(configured).orElseThrow(() -> new ToolchainException(
          what + " '" + configured + "' does not exist or is not executable. Fix " + element
              + " (property " + property + ") or remove it to search the usual places."));
      return Optional.of(identify(path, what, property));
    }
    for (String candidate : candidates) {
      Optional<Path> path = finder.find(candidate);
      if (path.isPresent()) {
        return Optional.of(identify(path.get(), what, property));
      }
    }
    return Optional.empty();
  }

  private Tool identify(Path executable, String what, String property) throws ToolchainException {
    try {
      ProcessResult version = versions.version(executable, runner);
      if (!version.succeeded()) {
        throw new ToolchainException(what + " " + executable + " failed to report its version (exit "
            + version.exitCode() + "):\n" + version.output().strip() + "\nCheck the installation or set " + property + ".");
      }
      return new Tool(executable, executable.toRealPath() + "\n" + version.output().strip());
    } catch (IOException e) {
      throw new ToolchainException(what + " " + executable + " could not be started: " + e.getMessage()
          + ". Check the installation or set " + property + ".", e);
    }
  }

  private String bin(String variable, String tool) {
    String home = environment.get(variable);
    return home == null || home.isBlank() ? null : Path.of(home, "bin", tool).toString();
  }

  private static List<String> candidates(String... names) {
    List<String> list = new ArrayList<>();
    for (String name : names) {
      if (name != null && !name.isBlank()) {
        list.add(name);
      }
    }
    return list;
  }
}
