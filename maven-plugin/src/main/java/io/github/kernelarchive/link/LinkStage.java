package io.github.kernelarchive.link;

import io.github.kernelarchive.archive.MemberSymbols;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.GpuArchitectures;
import io.github.kernelarchive.deps.StubRequest;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.glibc.GlibcFloor;
import io.github.kernelarchive.glibc.RedirectPlan;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.stub.StubStage;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The link policy: how CUDA objects reach their runtime (static, shared, or a stub), the device
 * link of relocatable device code, the stubs of runtimes reached lazily, and the layout: one
 * library with every archive linked privately, or one plain shared library per archive that the
 * library depends on. The library is checked ({@link SharedLibraryLinker.Check}) before it is
 * published under its name.
 */
public final class LinkStage {
  /**
   * An archive to link (perhaps still being written, see {@link LinkRequest.Archive}), and whether it
   * holds CUDA objects (then it takes part in the device link).
   */
  public record Archive(String name, LinkRequest.Archive archive, boolean deviceCode) {
    public Archive(String name, Path file, String sha256, List<MemberSymbols> definitions, boolean deviceCode) {
      this(name, new LinkRequest.Archive(file, sha256, definitions), deviceCode);
    }

    public Path file() {
      return archive.file();
    }
  }

  /**
   * What the earlier stages produced for the link.
   *
   * @param hostObjects host objects, in link order
   * @param cudaHostObjects those of them compiled by nvcc
   * @param usesCuda whether any source (host or archive) is CUDA: then the CUDA runtime is linked
   * @param cudaArchs the targets, for the device link
   * @param relocatableDeviceCode whether the device link runs
   * @param linkFlags the user's flags and those of the dependencies found
   * @param deviceLibraries the dependencies' device libraries, for the device link
   * @param stubs the dependencies reached through a stub
   * @param sharedLibraries kernel dependencies linked shared: in the output folder, NEEDED by SONAME,
   *     found through {@code $ORIGIN}
   */
  public record Inputs(List<Path> hostObjects, List<Path> cudaHostObjects, List<Archive> archives, boolean usesCuda,
      String cudaArchs, boolean relocatableDeviceCode, List<String> linkFlags, List<Path> deviceLibraries,
      List<StubRequest> stubs, List<Path> sharedLibraries) {}

  /** @param library null when there was nothing to link; @param archiveLibraries the plain layout's per-archive libraries */
  public record Result(SharedLibraryLinker.Result library, List<Path> archiveLibraries) {}

  private final Toolchain toolchain;
  private final Path outputDirectory;
  private final ContentHashes hashes;
  private final BuildLog log;

  public LinkStage(Toolchain toolchain, Path outputDirectory, ContentHashes hashes, BuildLog log) {
    this.toolchain = toolchain;
    this.outputDirectory = outputDirectory;
    this.hashes = hashes;
    this.log = log;
  }

  public Result link(String libraryName, LinkSettings settings, Inputs inputs, SharedLibraryLinker.Check check)
      throws ToolchainException, IOException, BuildFailureException {
    if (inputs.hostObjects().isEmpty() && inputs.archives().isEmpty()) {
      log.warn("No sources to compile: no library is linked. Check <sources> and <archives>.");
      return new Result(null, List.of());
    }
    List<String> linkFlags = new ArrayList<>(inputs.linkFlags());
    List<Path> hostObjects = new ArrayList<>(inputs.hostObjects());
    List<StubRequest> stubs = new ArrayList<>(inputs.stubs());
    Path cudaLibraries = null;
    if (inputs.usesCuda()) {
      Tool nvcc = toolchain.compiler(Language.CUDA).orElseThrow();
      Path cudaDirectory = CudaLibraries.directory(nvcc, toolchain.runner());
      if (toolchain.platform().cross() && settings.cudaRuntime() != CudaRuntime.STUB) {
        // The stub needs only the runtime's function names, which every platform's has; static and
        // shared link the runtime itself, which must be built for the platform.
        cudaDirectory = CudaLibraries.crossDirectory(nvcc, toolchain.runner(), toolchain.platform()).orElseThrow(() ->
            new BuildFailureException("kernel.cuda.runtime=" + settings.cudaRuntime().name().toLowerCase(
                java.util.Locale.ROOT) + " for " + toolchain.platform() + " links the CUDA runtime built for it"
                + " (libcudart_static.a, libcudart.so), which " + nvcc.command() + "'s install does not have under"
                + " targets/" + (toolchain.platform().triple().startsWith("aarch64") ? "sbsa-linux" : "")
                + "/lib. Install NVIDIA's cross packages for it, or set kernel.cuda.runtime=stub, which needs no"
                + " library of the platform: the runtime is loaded on first use."));
      }
      switch (settings.cudaRuntime()) {
        case SHARED -> linkFlags.addAll(List.of("-L" + cudaDirectory, "-lcudart"));
        case STUB -> stubs.add(cudaRuntimeStub(cudaDirectory, CudaLibraries.root(nvcc, toolchain.runner())));
        case STATIC -> cudaLibraries = cudaDirectory; // -lcudart_static
      }
      if (inputs.relocatableDeviceCode()) {
        try (Trace.Span span = Trace.current().span("device link", "link")) {
          hostObjects.add(deviceLink(libraryName, nvcc, inputs));
        }
      }
    }
    if (!stubs.isEmpty()) {
      awaitArchives(inputs); // stubs are made for what the archives call
      StubStage stage = new StubStage(toolchain.compiler(Language.C).orElseThrow(), toolchain.runner(), outputDirectory,
          toolchain.platform().elfMachine());
      List<Path> archiveFiles = inputs.archives().stream().map(Archive::file).toList();
      for (StubRequest stub : stubs) {
        StubStage.Result made = stage.build(stub, hostObjects, archiveFiles);
        hostObjects.add(made.object());
        log.info("Stub " + made.name() + ": " + made.functions().size() + " functions, loaded on first use from "
            + String.join(" or ", made.sonames()) + " (list in stubs-" + made.name() + ".txt)");
      }
      linkFlags.addAll(List.of("-ldl", "-lpthread"));
    }
    SharedLibraryLinker linker = new SharedLibraryLinker(toolchain.compiler(Language.CXX).orElseThrow(),
        toolchain.linker(), toolchain.runner(), outputDirectory, hashes, glibcFloor(settings), settings.staticRuntime());
    if (settings.privateArchives()) {
      List<LinkRequest.Archive> archives = inputs.archives().stream().map(Archive::archive).toList();
      try (Trace.Span span = Trace.current().span("link lib" + libraryName + ".so", "link")) {
        return new Result(logged(linker.link(new LinkRequest(libraryName, hostObjects, archives, true,
            inputs.sharedLibraries(), settings.exports(), settings.symbolVersion(), linkFlags, cudaLibraries), check)),
            List.of());
      }
    }
    List<Path> archiveLibraries = new ArrayList<>();
    for (Archive archive : inputs.archives()) {
      LinkRequest.Archive whole = archive.archive();
      archiveLibraries.add(logged(linker.link(new LinkRequest(archive.name(), List.of(), List.of(whole), false,
          List.of(), List.of(), null, linkFlags, cudaLibraries))).library());
    }
    List<Path> needed = new ArrayList<>(inputs.sharedLibraries());
    needed.addAll(archiveLibraries);
    return new Result(logged(linker.link(new LinkRequest(libraryName, hostObjects, List.of(), false, needed,
        settings.exports(), null, linkFlags, cudaLibraries), check)), archiveLibraries);
  }

  /** With {@code kernel.glibc}: what binds the library's glibc imports to that release. */
  private GlibcFloor glibcFloor(LinkSettings settings) throws BuildFailureException, ToolchainException {
    if (settings.glibc() == null) {
      return null;
    }
    int machine = toolchain.platform().elfMachine();
    if (machine != ElfObject.EM_X86_64 && machine != ElfObject.EM_AARCH64) {
      // Its redirects are assembly of those machines, and its replacements call their glibc's interfaces.
      throw new BuildFailureException("kernel.glibc=" + settings.glibc().version() + " is supported for x86_64 and"
          + " aarch64; this build is for " + toolchain.platform() + " (" + ElfObject.machineName(machine) + "). Remove"
          + " kernel.glibc for it, or build it in a container of the oldest system to support.");
    }
    Tool cc = toolchain.compiler(Language.C).orElseThrow(() -> new ToolchainException(
        "kernel.glibc needs a C compiler for its redirects; none was found. Install gcc or set <cc>."));
    return new GlibcFloor(settings.glibc(), cc, toolchain.runner(), outputDirectory.resolve("link"), machine);
  }

  /** One line on what was redirected to meet {@code kernel.glibc}, when the library was relinked for it. */
  private SharedLibraryLinker.Result logged(SharedLibraryLinker.Result result) {
    RedirectPlan plan = result.glibc();
    if (plan != null) {
      String file = result.library().getFileName().toString();
      log.info(file + " for glibc: " + plan.redirects().size() + " import(s) bound to older versions"
          + (plan.replaced().isEmpty() ? "" : ", defined privately: " + String.join(", ", plan.replaced()))
          + (plan.needed().isEmpty() ? "" : ", NEEDED added: " + String.join(", ", plan.needed()))
          + " (link/" + file + ".glibc.c)");
    }
    return result;
  }

  /**
   * {@code kernel.cuda.runtime=stub}: the CUDA runtime nvcc ships, reached through a stub that
   * loads its major, else the one before (13, then 12), as CMake's CUDA_RUNTIME_LIBRARY offers
   * Static and Shared and this adds the third way. Also what CUDA test programs for another
   * platform link where the install has no runtime built for it.
   */
  public static StubRequest cudaRuntimeStub(Path cudaDirectory, Path cudaRoot) throws IOException, BuildFailureException {
    Path runtime = cudaDirectory.resolve("libcudart.so");
    if (!Files.exists(runtime)) {
      throw new BuildFailureException("kernel.cuda.runtime=stub needs " + runtime + " (the shared CUDA runtime) to"
          + " read its functions from; it is not installed. Install it, or use kernel.cuda.runtime=static.");
    }
    Path real = runtime.toRealPath();
    Matcher major = Pattern.compile("libcudart\\.so\\.(\\d+)").matcher(real.getFileName().toString());
    List<String> sonames = new ArrayList<>();
    if (major.lookingAt()) {
      int m = Integer.parseInt(major.group(1));
      sonames.add("libcudart.so." + m);
      sonames.add("libcudart.so." + (m - 1));
    }
    // Its declarations say which functions return pointers (cudaGetErrorString, __cudaRegisterFatBinary).
    List<Path> headers = cudaRoot == null ? List.of() : Stream.of("cuda_runtime_api.h", "crt/host_runtime.h")
        .map(h -> cudaRoot.resolve("include").resolve(h)).filter(Files::isRegularFile).toList();
    if (headers.isEmpty()) {
      throw new BuildFailureException("kernel.cuda.runtime=stub needs the CUDA runtime's headers (cuda_runtime_api.h)"
          + " to tell which functions return pointers; none found under " + cudaRoot + "/include. Check the CUDA"
          + " installation, or use kernel.cuda.runtime=static.");
    }
    return new StubRequest("cudart", real, sonames, 35L, List.of(), headers);
  }

  /** Waits until every archive is written and checked: for the steps that read their bytes themselves. */
  private static void awaitArchives(Inputs inputs) throws IOException, BuildFailureException {
    for (Archive archive : inputs.archives()) {
      archive.archive().checks().await();
    }
  }

  /** nvcc -dlink over the host CUDA objects and every archive that holds CUDA objects. */
  private Path deviceLink(String libraryName, Tool nvcc, Inputs inputs)
      throws ToolchainException, IOException, BuildFailureException {
    awaitArchives(inputs); // nvlink reads the archives of record
    List<Path> objects = new ArrayList<>(inputs.cudaHostObjects());
    inputs.archives().stream().filter(Archive::deviceCode).forEach(a -> objects.add(a.file()));
    objects.addAll(inputs.deviceLibraries());
    Path dlink = new DeviceLinker(nvcc, toolchain.runner(), outputDirectory, hashes).link(libraryName,
        GpuArchitectures.nvccFlags(inputs.cudaArchs()), objects);
    log.info("Device link: nvcc -dlink over " + objects.size() + " input(s) -> " + dlink.getFileName());
    return dlink;
  }
}
