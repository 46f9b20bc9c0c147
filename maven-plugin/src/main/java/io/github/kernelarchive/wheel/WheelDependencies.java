package io.github.kernelarchive.wheel;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Matches the libraries a linked library needs to the wheels that provide them. A NEEDED library
 * that is no manylinux system library is looked up where the link found it (the library's RPATH or
 * RUNPATH): a file inside a site-packages folder belongs to the distribution whose
 * {@code .dist-info/RECORD} lists it, which gives the name, the version and the folder. A library
 * from a toolkit or distro install (the CUDA runtime under {@code /usr/local/cuda}, NVSHMEM from
 * an RPM in {@code /usr/lib64/nvshmem/13}) maps to the NVIDIA wheel that ships it. The pom's
 * declarations come first and fill in or replace any of this.
 */
public final class WheelDependencies {
  /** NVIDIA's wheel layouts for libraries installed from a toolkit or a distro package. */
  private record KnownLayout(Pattern soname, String distribution, String folder) {}

  /**
   * A CUDA runtime wheel: for a library that loads the runtime through a stub, an optional extra
   * ({@code pip install mha[cu13]}) and a folder its RPATH names, so whichever is installed loads.
   */
  public record CudaRuntimeWheel(String extra, String requirement, String folder) {}

  /** CUDA 13's wheels put every library in nvidia/cu13/lib, without a -cu13 suffix on the name; CUDA 12's are apart. */
  public static final List<CudaRuntimeWheel> CUDA_RUNTIMES = List.of(
      new CudaRuntimeWheel("cu13", "nvidia-cuda-runtime>=13,<14", "nvidia/cu13/lib"),
      new CudaRuntimeWheel("cu12", "nvidia-cuda-runtime-cu12>=12,<13", "nvidia/cuda_runtime/lib"));

  private static final List<KnownLayout> KNOWN = List.of(
      new KnownLayout(Pattern.compile("libcudart\\.so\\.(13)"), "nvidia-cuda-runtime", CUDA_RUNTIMES.get(0).folder()),
      new KnownLayout(Pattern.compile("libcudart\\.so\\.(12)"), "nvidia-cuda-runtime-cu12", CUDA_RUNTIMES.get(1).folder()),
      // NVSHMEM's wheel carries the CUDA major in its name; the RPM's folder (/usr/lib64/nvshmem/<major>) gives it.
      new KnownLayout(Pattern.compile("libnvshmem_host\\.so\\.(\\d+)"), "nvidia-nvshmem-cu{cuda}", "nvidia/nvshmem/lib"));
  private static final Pattern CUDA_MAJOR_FOLDER = Pattern.compile(".*/(\\d+)/?");

  private WheelDependencies() {}

  /**
   * @param library the linked library (its RPATH's {@code $ORIGIN} is its folder)
   * @param inWheel SONAMEs the wheel itself holds (vendored libraries)
   */
  public static List<WheelDependency> resolve(Path library, ElfObject elf, List<DeclaredDependency> declared,
      List<String> inWheel) throws BuildFailureException {
    NeededLibraries linked = NeededLibraries.of(library, elf);
    List<String> needed = linked.needed();
    Map<String, DeclaredDependency> byLibrary = new LinkedHashMap<>();
    for (DeclaredDependency d : declared) {
      if (d.library() == null || d.library().isBlank()) {
        throw new BuildFailureException("Every <wheel><dependencies><dependency> needs a <library>: the SONAME it"
            + " provides, e.g. libnvshmem_host.so.3.");
      }
      if (!needed.contains(d.library())) {
        throw new BuildFailureException("<wheel><dependencies> declares " + d.library() + ", but " + library.getFileName()
            + " does not need it (its NEEDED: " + needed + "). Check the library's name against `readelf -d "
            + library + "`, or remove the declaration.");
      }
      byLibrary.put(d.library(), d);
    }
    List<WheelDependency> result = new ArrayList<>();
    for (String soname : needed) {
      DeclaredDependency declaration = byLibrary.get(soname);
      if (inWheel.contains(soname) || (declaration == null && (ManylinuxPolicy.isSystemLibrary(soname)
          || ManylinuxPolicy.isDynamicLoader(soname)))) {
        continue;
      }
      Optional<Path> file = linked.locate(soname);
      Optional<WheelDependency> found = file.flatMap(f -> installedWheel(soname, f));
      if (found.isEmpty()) {
        found = knownLayout(soname, file.orElse(null));
      }
      if (declaration != null) {
        result.add(merge(declaration, found.orElse(null)));
      } else {
        found.ifPresent(result::add);
      }
    }
    return result;
  }

  private static WheelDependency merge(DeclaredDependency declared, WheelDependency found) throws BuildFailureException {
    String distribution = declared.distribution() != null ? declared.distribution() : found == null ? null : found.distribution();
    String folder = declared.folder() != null ? declared.folder() : found == null ? null : found.folder();
    if (distribution == null || folder == null) {
      throw new BuildFailureException("<wheel><dependencies> declares " + declared.library() + ", but the library the"
          + " link used was found in no installed wheel (no .dist-info lists it) and in no known NVIDIA layout: give"
          + " its <distribution> and <folder> (where that wheel puts it, e.g. nvidia/nvshmem/lib), or build against"
          + " the wheel itself (its site-packages in <sitePackages>).");
    }
    String requirement = declared.requirement() != null ? declared.requirement()
        : found != null && found.distribution().equals(distribution) ? found.requirement() : "";
    return new WheelDependency(declared.library(), distribution, requirement, folder,
        found == null ? "the pom" : found.foundBy() + ", as the pom declares");
  }

  /**
   * The distribution whose RECORD lists {@code file}: walks up from its folder to the
   * site-packages folder that holds a {@code .dist-info} naming it.
   */
  static Optional<WheelDependency> installedWheel(String soname, Path file) {
    Path real;
    try {
      real = file.toRealPath();
    } catch (IOException e) {
      return Optional.empty();
    }
    for (Path root = real.getParent(); root != null && root.getParent() != null; root = root.getParent()) {
      String relative = root.relativize(real).toString();
      try (Stream<Path> entries = Files.list(root)) {
        for (Path distInfo : (Iterable<Path>) entries.filter(p -> p.getFileName().toString().endsWith(".dist-info"))
            .sorted()::iterator) {
          Path record = distInfo.resolve("RECORD");
          if (Files.isRegularFile(record) && Files.readAllLines(record, StandardCharsets.UTF_8).stream()
              .anyMatch(line -> line.startsWith(relative + ","))) {
            Map<String, String> metadata = metadata(distInfo.resolve("METADATA"));
            String name = metadata.get("Name");
            String version = metadata.get("Version");
            if (name == null || version == null) {
              return Optional.empty();
            }
            return Optional.of(new WheelDependency(soname, name, sameMajor(version),
                root.relativize(real.getParent()).toString(), "installed wheel " + name + " " + version + " (" + distInfo + ")"));
          }
        }
      } catch (IOException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** {@code >=3.4.5,<4}: this version or newer within its major. */
  static String sameMajor(String version) {
    Matcher major = Pattern.compile("(\\d+).*").matcher(version);
    return major.matches() ? ">=" + version + ",<" + (Long.parseLong(major.group(1)) + 1) : ">=" + version;
  }

  private static Optional<WheelDependency> knownLayout(String soname, Path file) {
    for (KnownLayout layout : KNOWN) {
      Matcher m = layout.soname().matcher(soname);
      if (!m.matches()) {
        continue;
      }
      String distribution = layout.distribution();
      if (distribution.contains("{cuda}")) {
        Matcher cuda = file == null ? null : CUDA_MAJOR_FOLDER.matcher(file.getParent().toString());
        if (cuda == null || !cuda.matches()) {
          return Optional.empty();
        }
        distribution = distribution.replace("{cuda}", cuda.group(1));
      }
      int major = Integer.parseInt(m.group(1));
      return Optional.of(new WheelDependency(soname, distribution, ">=" + major + ",<" + (major + 1), layout.folder(),
          "NVIDIA's wheel layout for " + soname + (file == null ? "" : " (linked from " + file.getParent() + ")")));
    }
    return Optional.empty();
  }

  /** The {@code Key: value} header fields of a METADATA file (the first of each). */
  private static Map<String, String> metadata(Path file) throws IOException {
    Map<String, String> fields = new LinkedHashMap<>();
    if (!Files.isRegularFile(file)) {
      return fields;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isEmpty()) {
        break;
      }
      int colon = line.indexOf(": ");
      if (colon > 0) {
        fields.putIfAbsent(line.substring(0, colon), line.substring(colon + 2).trim());
      }
    }
    return fields;
  }
}
