package io.github.kernelarchive.deps;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.scan.AntPatterns;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves every declared native dependency before compiling: one log line each (rule and
 * directories), optional misses drop the sources that need them, required misses fail with every
 * place searched.
 */
public final class DependencyStage {

  /** What the dependencies add to the build, and the sources left once optional misses dropped theirs. */
  public record Outcome(List<SourceFile> sources, List<Path> includeDirectories, List<String> linkFlags,
      List<Path> deviceLibraries, List<StubRequest> stubs) {}

  /** What stubbed functions of these runtimes return when nothing loads: cudaErrorInsufficientDriver, NVRTC_ERROR_INTERNAL_ERROR. */
  private static final Map<String, Long> MISSING_RESULTS = Map.of("cudart", 35L, "nvrtc", 11L);

  private final Toolchain toolchain;
  private final Map<String, String> environment;
  private final BuildLog log;

  public DependencyStage(Toolchain toolchain, Map<String, String> environment, BuildLog log) {
    this.toolchain = toolchain;
    this.environment = environment;
    this.log = log;
  }

  public Outcome resolve(DependencySettings settings, List<SourceFile> sources)
      throws ToolchainException, BuildFailureException {
    List<NativeDependency> dependencies = settings.dependencies();
    if (dependencies.isEmpty()) {
      return new Outcome(sources, List.of(), List.of(), List.of(), List.of());
    }
    // The CUDA installation tells the wheel-root and distro rules where and which major to look for.
    Path cudaRoot = null;
    String cudaMajor = null;
    Optional<Tool> nvcc = toolchain.compiler(Language.CUDA);
    if (nvcc.isPresent()) {
      cudaRoot = CudaLibraries.root(nvcc.get(), toolchain.runner());
      cudaMajor = CudaLibraries.major(nvcc.get());
    }
    DependencyResolver resolver = new DependencyResolver(environment, settings.root(), cudaMajor, settings.sitePackages(),
        cudaRoot);
    List<SourceFile> kept = new ArrayList<>(sources);
    List<Path> includes = new ArrayList<>();
    List<String> flags = new ArrayList<>();
    List<Path> device = new ArrayList<>();
    List<StubRequest> stubs = new ArrayList<>();
    for (NativeDependency dependency : dependencies) {
      DependencyResolver.Result result = resolver.resolve(dependency);
      if (result.resolved().isPresent()) {
        ResolvedDependency found = result.resolved().get();
        log.info("Dependency " + found.describe() + (dependency.stub() == null ? "" : "; reached through a stub"));
        includes.addAll(found.includeDirectories());
        device.addAll(found.deviceLibraries());
        if (dependency.stub() == null) {
          flags.addAll(found.hostLinkFlags());
        } else {
          stubs.add(stubRequest(dependency, found));
        }
        continue;
      }
      String places = String.join("\n  ", result.searched());
      if (!dependency.optional()) {
        throw new BuildFailureException("Required dependency '" + dependency.name() + "' not found. Searched:\n  "
            + places + "\nInstall it, or point " + dependency.name().toUpperCase(Locale.ROOT)
            + "_DIR (or _INCLUDE_PATH and _LIBRARY_PATH) at it.");
      }
      AntPatterns patterns = AntPatterns.of(dependency.sourcePatterns());
      List<SourceFile> dropped = kept.stream().filter(s -> patterns.matches(s.relativePath())).toList();
      kept.removeAll(dropped);
      log.info("Dependency " + dependency.name() + " not found (optional): " + dropped.size()
          + " source(s) that need it dropped: " + String.join(", ", dropped.stream().map(SourceFile::displayName).toList()));
      log.debug("searched for " + dependency.name() + ":\n  " + places);
    }
    return new Outcome(kept, includes, flags, device, stubs);
  }

  private static StubRequest stubRequest(NativeDependency dependency, ResolvedDependency found)
      throws BuildFailureException {
    NativeDependency.Stub stub = dependency.stub();
    Long missing = stub.missingResult() != null ? stub.missingResult() : MISSING_RESULTS.get(dependency.name());
    if (missing == null) {
      throw new BuildFailureException("Dependency '" + dependency.name() + "' has <linkage>stub</linkage> but no"
          + " <missingResult>: set the value its functions return when no runtime loads (e.g. an error status).");
    }
    if (found.libraries().size() != 1) {
      throw new BuildFailureException("Dependency '" + dependency.name() + "' has <linkage>stub</linkage> and "
          + found.libraries().size() + " libraries " + found.libraries() + ": a stub stands for exactly one runtime."
          + " Name one in <libraries>.");
    }
    // The declarations in its <headers> say which functions return pointers.
    List<Path> headers = new ArrayList<>();
    for (String header : dependency.headers()) {
      found.includeDirectories().stream().map(d -> d.resolve(header)).filter(Files::isRegularFile).findFirst()
          .ifPresent(headers::add);
    }
    return new StubRequest(dependency.name(), found.libraries().get(0), stub.sonames(), missing, stub.incompatible(),
        headers);
  }
}
