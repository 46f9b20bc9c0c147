package io.github.kernelarchive.wheel;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.NeededPaths;
import io.github.kernelarchive.util.ProjectTree;
import io.github.kernelarchive.wheelfile.WheelEntry;
import io.github.kernelarchive.wheelfile.WheelWriter;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The wheel stage: puts the linked library into its import package, matches what it needs to
 * other wheels (their {@code Requires-Dist}, and an RPATH relative to {@code $ORIGIN} in place of
 * the build machine's folders) or copies it in (vendoring), computes the manylinux tag from the
 * content, and writes the wheel.
 */
public final class WheelBuilder {
  /**
   * @param wheel the wheel in {@code target}
   * @param tags {@code py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64}
   * @param vendored the wheel paths of the libraries copied in
   * @param removed wheels of this version and architecture an earlier build left under another tag
   */
  public record Result(Path wheel, String tags, PlatformTag.Result platform, List<WheelDependency> dependencies,
      List<String> vendored, WheelWriter.Outcome outcome, List<Path> removed) {}

  /** A needed library copied into {@code <top>.libs/} under a name that carries its content hash. */
  private record Vendored(String soname, String renamed, Path copy) {}

  private final ProcessRunner runner;

  public WheelBuilder(ProcessRunner runner) {
    this.runner = runner;
  }

  public Result build(WheelRequest request) throws BuildFailureException, ToolchainException, IOException {
    Path library = request.library();
    if (!Files.isRegularFile(library)) {
      throw new BuildFailureException(library + " is missing: the wheel is made from the library the build goal links."
          + " Run the build goal first (phase compile), e.g. mvn package.");
    }
    ElfObject elf = parse(library);
    NeededLibraries linked = NeededLibraries.of(library, elf);
    for (String needed : linked.needed()) {
      NeededPaths.requireName(library.getFileName().toString(), needed, "wheel");
    }
    String top = request.importPackage().split("/")[0];
    List<Vendored> vendored = vendor(linked, request, top + ".libs");
    List<WheelDependency> dependencies = WheelDependencies.resolve(library, elf, request.dependencies(),
        request.vendored());
    for (WheelDependency d : dependencies) {
      if (request.vendored().contains(d.library())) {
        throw new BuildFailureException(d.library() + " is both vendored (<wheel><vendored>) and a wheel dependency"
            + " (<wheel><dependencies>): choose one.");
      }
    }
    String placed = request.importPackage() + "/" + (request.extension() != null
        ? request.extension().module() + request.extension().suffix() : library.getFileName().toString());
    Path inWheel = wheelCopy(library, elf, placed, dependencies, vendored, top + ".libs", request);

    List<PlatformTag.ElfFile> files = new ArrayList<>();
    files.add(new PlatformTag.ElfFile(placed, inWheel.equals(library) ? elf : parse(inWheel)));
    Set<String> provided = new LinkedHashSet<>();
    dependencies.forEach(d -> provided.add(d.library()));
    for (Vendored v : vendored) {
      files.add(new PlatformTag.ElfFile(top + ".libs/" + v.renamed(), parse(v.copy())));
      provided.add(v.renamed());
    }
    String architecture = architecture(elf, library);
    PlatformTag.Result platform = PlatformTag.compute(files, provided, architecture, maxPolicy(request),
        request.glibcTarget());

    String python = request.extension() != null ? request.extension().pythonTag() : "py3";
    String abi = request.extension() != null ? request.extension().abiTag() : "none";
    String tags = python + "-" + abi + "-" + String.join(".", platform.tags());
    String distribution = DistributionName.fileComponent(request.name());
    String distInfo = distribution + "-" + request.version() + ".dist-info";
    List<WheelEntry> entries = new ArrayList<>();
    entries.add(WheelEntry.file(placed, inWheel, true));
    vendored.forEach(v -> entries.add(WheelEntry.file(top + ".libs/" + v.renamed(), v.copy(), true)));
    int before = entries.size();
    addTree(entries, request.pythonSources(), request.project(), "");
    checkPythonLayout(entries.subList(before, entries.size()), request, top);
    if (request.extension() == null) {
      String loader = request.importPackage() + "/" + NativeLoaderSource.FILE;
      if (entries.stream().anyMatch(e -> e.name().equals(loader))) {
        throw new BuildFailureException(request.pythonSources().resolve(loader) + " has the name of the loader the"
            + " wheel goal writes into every ctypes wheel (" + loader + ": 'from ._native import lib'). Rename yours.");
      }
      entries.add(WheelEntry.text(loader, NativeLoaderSource.of(library.getFileName().toString(), request.name())));
    }
    addTree(entries, request.headers(), request.project(), request.importPackage() + "/include/");
    Map<String, List<String>> extras = new TreeMap<>(request.metadata().extras());
    if (request.cudaStub()) {
      // One wheel for CUDA 12 and 13: no runtime requirement, an extra that pulls either.
      WheelDependencies.CUDA_RUNTIMES.forEach(r -> extras.putIfAbsent(r.extra(), List.of(r.requirement())));
    }
    entries.add(WheelEntry.text(distInfo + "/METADATA", WheelMetadata.metadata(request, dependencies, extras)));
    entries.add(WheelEntry.text(distInfo + "/WHEEL", WheelMetadata.wheel(request.generator(), python, abi, platform.tags())));
    Path wheel = request.outputDirectory().resolve(distribution + "-" + request.version() + "-" + tags + ".whl");
    WheelWriter.Outcome outcome = WheelWriter.write(wheel, distInfo, entries, request.time());
    List<Path> replaced = removeStale(wheel, distribution + "-" + request.version() + "-", "_" + architecture + ".whl");
    return new Result(wheel, tags, platform, dependencies,
        vendored.stream().map(v -> top + ".libs/" + v.renamed()).toList(), outcome, replaced);
  }

  /**
   * Removes the wheels of this distribution, version and architecture that {@code kept} replaces:
   * an earlier build's under another tag (the content needed another policy), which
   * {@code target/*.whl} would otherwise match beside the new one. Other architectures' stay.
   */
  private static List<Path> removeStale(Path kept, String prefix, String suffix) throws IOException {
    List<Path> removed = new ArrayList<>();
    try (java.nio.file.DirectoryStream<Path> wheels = Files.newDirectoryStream(kept.getParent(), "*.whl")) {
      for (Path wheel : wheels) {
        String name = wheel.getFileName().toString();
        if (!wheel.equals(kept) && name.startsWith(prefix) && name.endsWith(suffix) && Files.isRegularFile(wheel)) {
          Files.delete(wheel);
          removed.add(wheel);
        }
      }
    }
    return removed;
  }

  /** The wheel tag's architecture, from the library's ELF machine (not the classifier, which users name freely). */
  private static String architecture(ElfObject elf, Path library) throws BuildFailureException {
    return switch (elf.machine()) {
      case ElfObject.EM_X86_64 -> "x86_64";
      case ElfObject.EM_AARCH64 -> "aarch64";
      case ElfObject.EM_PPC64 -> "ppc64le";
      default -> throw new BuildFailureException(library + " is built for " + ElfObject.machineName(elf.machine())
          + ", for which no manylinux tag exists here (x86_64, aarch64, ppc64le).");
    };
  }

  private static ManylinuxPolicy maxPolicy(WheelRequest request) throws BuildFailureException {
    if (request.maxManylinux() == null) {
      return null;
    }
    String name = request.maxManylinux().startsWith("manylinux") ? request.maxManylinux()
        : "manylinux_" + request.maxManylinux();
    return ManylinuxPolicy.named(name).orElseThrow(() -> new BuildFailureException("<wheel><maxManylinux> is '"
        + request.maxManylinux() + "', which names no manylinux policy: use e.g. 2_17, 2_28 or 2_34."));
  }

  /**
   * Copies each vendored library into the work folder as {@code lib<name>-<8 hex of its SHA-256>.so.N}
   * (so two wheels that vendor different builds of one library never share a loaded copy), with
   * that name as its SONAME and an RPATH of {@code $ORIGIN} (its own vendored neighbours).
   */
  private List<Vendored> vendor(NeededLibraries linked, WheelRequest request, String folder)
      throws BuildFailureException, ToolchainException, IOException {
    List<Vendored> vendored = new ArrayList<>();
    for (String soname : request.vendored()) {
      if (!linked.needed().contains(soname)) {
        throw new BuildFailureException("<wheel><vendored> names " + soname + ", but " + linked.library().getFileName()
            + " does not need it (its NEEDED: " + linked.needed() + ").");
      }
      Path file = linked.locate(soname).orElseThrow(() -> new BuildFailureException("<wheel><vendored> names " + soname
          + ", which is in none of " + linked.library().getFileName() + "'s RPATH folders " + linked.searchPath()
          + ": the file to copy is unknown. Link it through a <dependency> (which records its folder), or give the"
          + " folder in <linkFlags> as -Wl,-rpath,<folder>."));
      String hash = Hashing.ofFile(file).substring(0, 8);
      int so = soname.indexOf(".so");
      String renamed = so < 0 ? soname + "-" + hash : soname.substring(0, so) + "-" + hash + soname.substring(so);
      Path copy = Files.createDirectories(request.workDirectory().resolve(folder)).resolve(renamed);
      Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
      patchelf(List.of("--set-soname", renamed), copy, "vendor " + soname);
      patchelf(List.of("--force-rpath", "--set-rpath", "$ORIGIN"), copy, "vendor " + soname);
      vendored.add(new Vendored(soname, renamed, copy));
    }
    return vendored;
  }

  /**
   * The library as it goes into the wheel: unchanged when nothing needs rewriting, else a copy in
   * the work folder that needs the vendored copies by their new names, and whose DT_RPATH keeps
   * the {@code $ORIGIN}-relative entries, drops the build machine's folders, and adds one entry per
   * wheel dependency, from the library's place in the wheel to that wheel's folder (as PyTorch's
   * own libraries reach NVIDIA's wheels), and one to the vendored libraries.
   */
  private Path wheelCopy(Path library, ElfObject elf, String placed, List<WheelDependency> dependencies,
      List<Vendored> vendored, String vendorFolder, WheelRequest request) throws IOException, ToolchainException {
    List<String> current = new ArrayList<>();
    elf.dynamicEntries().stream()
        .filter(e -> e.tag() == ElfObject.DT_RPATH || e.tag() == ElfObject.DT_RUNPATH)
        .forEach(e -> current.addAll(List.of(e.value().split(":"))));
    Set<String> rpath = new LinkedHashSet<>();
    current.stream().filter(d -> d.startsWith("$ORIGIN") || d.startsWith("${ORIGIN}")).forEach(rpath::add);
    String up = "$ORIGIN" + "/..".repeat(placed.split("/").length - 1);
    dependencies.forEach(d -> rpath.add(up + "/" + d.folder()));
    if (request.cudaStub()) {
      WheelDependencies.CUDA_RUNTIMES.forEach(r -> rpath.add(up + "/" + r.folder()));
    }
    if (!vendored.isEmpty()) {
      rpath.add(up + "/" + vendorFolder);
    }
    if (List.copyOf(rpath).equals(current) && vendored.isEmpty()) {
      return library;
    }
    Files.createDirectories(request.workDirectory());
    Path copy = request.workDirectory().resolve(library.getFileName());
    Files.copy(library, copy, StandardCopyOption.REPLACE_EXISTING);
    for (Vendored v : vendored) {
      patchelf(List.of("--replace-needed", v.soname(), v.renamed()), copy, "need the vendored " + v.renamed());
    }
    patchelf(rpath.isEmpty() ? List.of("--remove-rpath") : List.of("--force-rpath", "--set-rpath", String.join(":", rpath)),
        copy, "set its RPATH to " + rpath + " (relative to $ORIGIN instead of this machine's folders)");
    return copy;
  }

  /**
   * One patchelf edit. One at a time: patchelf 0.14 (Debian 12's) given --set-soname and
   * --set-rpath together wrote the RPATH's string into both (measured).
   */
  private void patchelf(List<String> options, Path file, String why) throws ToolchainException {
    List<String> argv = new ArrayList<>();
    argv.add("patchelf");
    argv.addAll(options);
    argv.add(file.toString());
    ProcessResult result;
    try {
      result = runner.run(argv, null);
    } catch (IOException e) {
      throw new ToolchainException("The wheel's copy of " + file.getFileName() + " needs patchelf to " + why
          + ", and patchelf cannot be run (" + e.getMessage() + "): apt-get install patchelf.");
    }
    if (!result.succeeded()) {
      throw new ToolchainException(String.join(" ", argv) + " failed:\n" + result.output());
    }
  }

  /**
   * The Python sources must fit the package the library goes into: a top-level {@code __init__.py}
   * would land in site-packages itself, and Python packages none of which is {@code <package>}'s
   * top folder mean the wrapper looks for the library in a folder the wheel does not put it in.
   */
  private static void checkPythonLayout(List<WheelEntry> python, WheelRequest request, String top)
      throws BuildFailureException {
    if (python.stream().anyMatch(e -> e.name().equals("__init__.py"))) {
      throw new BuildFailureException(request.pythonSources().resolve("__init__.py") + " is at the top of the Python"
          + " sources, so the wheel would install it into site-packages itself, belonging to no package. Move it to "
          + request.pythonSources().resolve(top) + "/__init__.py, the package the library goes into (<wheel><package>"
          + " is " + request.importPackage() + ").");
    }
    Set<String> packages = new java.util.TreeSet<>();
    python.stream().map(WheelEntry::name).filter(n -> n.contains("/") && n.endsWith("/__init__.py"))
        .map(n -> n.substring(0, n.indexOf('/'))).forEach(packages::add);
    if (!packages.isEmpty() && !packages.contains(top)) {
      throw new BuildFailureException("<wheel><package> is '" + request.importPackage() + "', so the library goes"
          + " into " + top + "/ in the wheel, but " + request.pythonSources() + " holds the package"
          + (packages.size() == 1 ? " " : "s ") + String.join(", ", packages) + " and no " + top + "/: its wrapper"
          + " would not find the library. Set <wheel><package> to " + String.join(" or ", packages) + ", or rename"
          + " the folder.");
    }
  }

  /** The project's files under {@code root} ({@link ProjectTree}'s rules), at {@code prefix} + their path; nothing when absent. */
  private static void addTree(List<WheelEntry> entries, Path root, Path project, String prefix)
      throws BuildFailureException, IOException {
    if (root == null) {
      return;
    }
    ProjectTree.files(root, project, prefix, "wheel",
        p -> p.equals("__pycache__") || p.endsWith("/__pycache__") || p.endsWith(".pyc"))
        .forEach((name, path) -> entries.add(WheelEntry.file(name, path, Files.isExecutable(path))));
  }

  private static ElfObject parse(Path library) throws IOException, BuildFailureException {
    try (FileChannel channel = FileChannel.open(library)) {
      MappedByteBuffer data = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
      return ElfObject.parse(data);
    } catch (ElfFormatException e) {
      throw new BuildFailureException(library + " is no ELF shared library the wheel can hold: " + e.getMessage());
    }
  }
}
