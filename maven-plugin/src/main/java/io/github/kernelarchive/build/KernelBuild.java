package io.github.kernelarchive.build;

import io.github.kernelarchive.compile.CompileStage;
import io.github.kernelarchive.compile.CompileStage.CompiledObject;
import io.github.kernelarchive.link.LinkRequest;
import io.github.kernelarchive.link.SharedLibraryLinker;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.scan.SourceScanner;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The pipeline: scan, compile (planned incrementally), link; then one summary block. */
public final class KernelBuild {
  private final BuildLog log;
  private final Map<String, String> environment;

  public KernelBuild(BuildLog log, Map<String, String> environment) {
    this.log = log;
    this.environment = Map.copyOf(environment);
  }

  public BuildSummary run(KernelBuildRequest request)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    long start = System.nanoTime();
    List<SourceFile> sources = new ArrayList<>();
    SourceScanner scanner = new SourceScanner();
    for (SourceSet set : request.sourceSets()) {
      sources.addAll(scanner.scan(set));
    }
    long scanMillis = (System.nanoTime() - start) / 1_000_000;

    Toolchain toolchain = new Toolchain(request.toolchain(), environment);
    CompileStage.Result compiled = new CompileStage(toolchain, request.compileOptions(),
        request.outputDirectory(), request.projectDirectory(), request.jobs(), log).run(sources);
    log.info("Compile: " + compiled.compiled() + " compiled, " + compiled.upToDate() + " up to date"
        + (compiled.skipped().isEmpty() ? "" : ", " + compiled.skipped().size() + " skipped"));

    long linkStart = System.nanoTime();
    SharedLibraryLinker.Result linked = null;
    if (!compiled.objects().isEmpty()) {
      Tool cxx = toolchain.compiler(Language.CXX).orElseThrow();
      linked = new SharedLibraryLinker(cxx, toolchain.runner(), request.outputDirectory())
          .link(linkRequest(request, compiled.objects(), toolchain));
    } else {
      log.warn("No sources to compile: no library is linked. Check <sources> and <archives>.");
    }
    long linkMillis = (System.nanoTime() - linkStart) / 1_000_000;

    BuildSummary summary = new BuildSummary(compiled.compiled(), compiled.upToDate(), compiled.skipped().size(),
        linked == null ? null : linked.library(), linked != null && linked.relinked(),
        scanMillis, compiled.planMillis(), compiled.compileMillis(), linkMillis);
    logSummary(summary);
    return summary;
  }

  private static LinkRequest linkRequest(KernelBuildRequest request, List<CompiledObject> objects,
      Toolchain toolchain) throws ToolchainException {
    Path cudaLibraries = null;
    if (objects.stream().anyMatch(o -> o.source().language() == Language.CUDA)) {
      cudaLibraries = CudaLibraries.directory(toolchain.compiler(Language.CUDA).orElseThrow(), toolchain.runner());
    }
    return new LinkRequest(request.libraryName(), objects.stream().map(CompiledObject::object).toList(),
        request.exports(), request.linkFlags(), cudaLibraries);
  }

  private void logSummary(BuildSummary s) {
    log.info("------------------------------------------------------------------------");
    log.info("Kernel Archive summary");
    log.info("  objects   " + s.compiled() + " compiled, " + s.upToDate() + " up to date, " + s.skipped() + " skipped");
    log.info("  library   " + (s.library() == null ? "none" : s.library() + (s.relinked() ? " (linked)" : " (up to date)")));
    log.info(String.format("  time      scan %.2f s | plan %.2f s | compile %.2f s | link %.2f s",
        s.scanMillis() / 1000.0, s.planMillis() / 1000.0, s.compileMillis() / 1000.0, s.linkMillis() / 1000.0));
    log.info("------------------------------------------------------------------------");
  }
}
