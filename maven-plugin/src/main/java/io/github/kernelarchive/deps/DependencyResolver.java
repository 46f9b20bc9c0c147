package io.github.kernelarchive.deps;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds a native dependency where users actually install it. Rules, first hit wins:
 * configuration; {@code NAME_INCLUDE_PATH}/{@code NAME_LIBRARY_PATH} (path lists) with
 * {@code NAME_LDFLAGS}; {@code NAME_DIR} ({@code include}, {@code lib64}, {@code lib}); pip wheel
 * layouts ({@code site-packages/nvidia/<name>/{include,lib}}, and a CUDA root assembled from
 * NVIDIA's wheels, recognised by its {@code dist-info}); distro directories
 * ({@code /usr/include/<name>_<cuda major>} with {@code /usr/lib64/<name>/<cuda major>}, then
 * multiarch). A rule hits only when every header and every library is there; each miss is kept
 * with its reason for the error message.
 */
public final class DependencyResolver {

  /** A rule's candidate directories. */
  private record Candidate(String rule, List<Path> includeDirectories, List<Path> libraryDirectories, List<String> linkFlags) {}

  /** The outcome: the dependency, or every place searched and why it did not do. */
  public record Result(Optional<ResolvedDependency> resolved, List<String> searched) {}

  private final Map<String, String> environment;
  private final Path root;
  private final String cudaMajor;
  private final List<Path> sitePackages;
  private final Path cudaRoot;

  /**
   * @param root prefix of the distro and system site-packages directories ({@code /} normally; tests use a temporary one)
   * @param cudaMajor e.g. {@code 13}, for the distro layouts; may be null
   * @param sitePackages extra Python site-packages directories to search for wheels
   * @param cudaRoot the CUDA installation nvcc belongs to (null without nvcc)
   */
  public DependencyResolver(Map<String, String> environment, Path root, String cudaMajor, List<Path> sitePackages,
      Path cudaRoot) {
    this.environment = Map.copyOf(environment);
    this.root = root;
    this.cudaMajor = cudaMajor;
    this.sitePackages = List.copyOf(sitePackages);
    this.cudaRoot = cudaRoot;
  }

  public Result resolve(NativeDependency dependency) {
    List<String> searched = new ArrayList<>();
    for (Candidate candidate : candidates(dependency)) {
      String problem = problem(dependency, candidate);
      if (problem == null) {
        return new Result(Optional.of(new ResolvedDependency(dependency.name(), candidate.rule(),
            existing(candidate.includeDirectories()), find(dependency.libraries(), candidate, false),
            find(dependency.deviceLibraries(), candidate, true), candidate.linkFlags())), searched);
      }
      searched.add(candidate.rule() + ": " + problem);
    }
    return new Result(Optional.empty(), searched);
  }

  private List<Candidate> candidates(NativeDependency dependency) {
    String upper = dependency.name().toUpperCase(Locale.ROOT).replace('-', '_');
    List<Candidate> candidates = new ArrayList<>();
    if (!dependency.includeDirectories().isEmpty() || !dependency.libraryDirectories().isEmpty()) {
      candidates.add(new Candidate("configuration", dependency.includeDirectories(), dependency.libraryDirectories(), List.of()));
    }
    String includePath = environment.get(upper + "_INCLUDE_PATH");
    String libraryPath = environment.get(upper + "_LIBRARY_PATH");
    if (includePath != null || libraryPath != null) {
      String ldflags = environment.getOrDefault(upper + "_LDFLAGS", "").trim();
      candidates.add(new Candidate(upper + "_INCLUDE_PATH/" + upper + "_LIBRARY_PATH", paths(includePath),
          paths(libraryPath), ldflags.isEmpty() ? List.of() : List.of(ldflags.split("\\s+"))));
    }
    String dir = environment.get(upper + "_DIR");
    if (dir != null && !dir.isBlank()) {
      Path base = Path.of(dir);
      candidates.add(new Candidate(upper + "_DIR=" + dir, List.of(base.resolve("include")),
          List.of(base.resolve("lib64"), base.resolve("lib")), List.of()));
    }
    for (Path site : siteDirectories()) {
      Path wheel = site.resolve("nvidia").resolve(dependency.name());
      candidates.add(new Candidate("pip wheel " + wheel, List.of(wheel.resolve("include")), List.of(wheel.resolve("lib")), List.of()));
    }
    if (cudaRoot != null && Files.isDirectory(cudaRoot.resolve("dist-info"))) {
      candidates.add(new Candidate("CUDA wheel root " + cudaRoot, List.of(cudaRoot.resolve("include")),
          List.of(cudaRoot.resolve("lib"), cudaRoot.resolve("lib64")), List.of()));
    }
    if (cudaMajor != null) {
      candidates.add(new Candidate("distro " + root.resolve("usr/include/" + dependency.name() + "_" + cudaMajor),
          List.of(root.resolve("usr/include/" + dependency.name() + "_" + cudaMajor)),
          List.of(root.resolve("usr/lib64/" + dependency.name() + "/" + cudaMajor)), List.of()));
    }
    candidates.add(new Candidate("multiarch " + root.resolve("usr"), List.of(root.resolve("usr/include")),
        List.of(root.resolve("usr/lib/x86_64-linux-gnu"), root.resolve("usr/lib/aarch64-linux-gnu"),
            root.resolve("usr/lib64"), root.resolve("usr/lib")), List.of()));
    return candidates;
  }

  /** Site-packages to search: configured ones, the active virtualenv or conda env, the system's. */
  private List<Path> siteDirectories() {
    List<Path> sites = new ArrayList<>(sitePackages);
    for (String prefix : new String[] {environment.get("VIRTUAL_ENV"), environment.get("CONDA_PREFIX")}) {
      if (prefix != null && !prefix.isBlank()) {
        sites.addAll(pythonDirectories(Path.of(prefix, "lib"), "site-packages"));
      }
    }
    sites.addAll(pythonDirectories(root.resolve("usr/local/lib"), "dist-packages"));
    sites.addAll(pythonDirectories(root.resolve("usr/local/lib"), "site-packages"));
    sites.addAll(pythonDirectories(root.resolve("usr/lib"), "dist-packages"));
    sites.addAll(pythonDirectories(root.resolve("usr/lib"), "site-packages"));
    return sites;
  }

  private static List<Path> pythonDirectories(Path lib, String kind) {
    if (!Files.isDirectory(lib)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(lib)) {
      return entries.filter(p -> p.getFileName().toString().startsWith("python3"))
          .map(p -> p.resolve(kind)).filter(Files::isDirectory).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Why this candidate does not do, or {@code null} when it has every header and library. */
  private String problem(NativeDependency dependency, Candidate candidate) {
    List<Path> includes = existing(candidate.includeDirectories());
    List<Path> libraries = existing(candidate.libraryDirectories());
    if (includes.isEmpty() && libraries.isEmpty()) {
      return "no such directories " + candidate.includeDirectories() + " " + candidate.libraryDirectories();
    }
    List<String> missing = new ArrayList<>();
    for (String header : dependency.headers()) {
      if (includes.stream().noneMatch(d -> Files.isRegularFile(d.resolve(header)))) {
        missing.add("header " + header + " (not in " + candidate.includeDirectories() + ")");
      }
    }
    for (String library : dependency.libraries()) {
      if (findOne(library, libraries, false).isEmpty()) {
        missing.add("library lib" + library + ".so* (not in " + candidate.libraryDirectories() + ")");
      }
    }
    for (String library : dependency.deviceLibraries()) {
      if (findOne(library, libraries, true).isEmpty()) {
        missing.add("device library lib" + library + ".a (not in " + candidate.libraryDirectories() + ")");
      }
    }
    return missing.isEmpty() ? null : "missing " + String.join(", ", missing);
  }

  private List<Path> find(List<String> names, Candidate candidate, boolean archive) {
    List<Path> libraryDirectories = existing(candidate.libraryDirectories());
    return names.stream().map(n -> findOne(n, libraryDirectories, archive).orElseThrow()).toList();
  }

  /**
   * {@code lib<name>.so} when present, else the shortest {@code lib<name>.so.N...} (wheels ship
   * only the SONAME file, no development symlink); {@code lib<name>.a} for device libraries.
   */
  private static Optional<Path> findOne(String name, List<Path> directories, boolean archive) {
    for (Path directory : directories) {
      if (archive) {
        Path a = directory.resolve("lib" + name + ".a");
        if (Files.isRegularFile(a)) {
          return Optional.of(a);
        }
        continue;
      }
      Path plain = directory.resolve("lib" + name + ".so");
      if (Files.exists(plain)) {
        return Optional.of(plain);
      }
      try (Stream<Path> entries = Files.list(directory)) {
        Optional<Path> versioned = entries.filter(p -> p.getFileName().toString().startsWith("lib" + name + ".so."))
            .min(Comparator.comparingInt((Path p) -> p.getFileName().toString().length()).thenComparing(Path::toString));
        if (versioned.isPresent()) {
          return versioned;
        }
      } catch (IOException e) {
        // unreadable directory: try the next one
      }
    }
    return Optional.empty();
  }

  private static List<Path> existing(List<Path> directories) {
    return directories.stream().filter(Files::isDirectory).toList();
  }

  private static List<Path> paths(String list) {
    if (list == null || list.isBlank()) {
      return List.of();
    }
    List<Path> paths = new ArrayList<>();
    for (String entry : list.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        paths.add(Path.of(entry));
      }
    }
    return paths;
  }
}
