package io.github.kernelarchive.deps;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a dependency was found and how to build against it.
 *
 * @param rule the rule that found it, for the log
 * @param libraries host libraries as found: linked with {@code -l:<file>} so the SONAME of the file
 *     that exists is recorded, with an rpath to its directory
 * @param deviceLibraries static device libraries, full paths, for the device link
 * @param linkFlags extra flags ({@code NAME_LDFLAGS})
 */
public record ResolvedDependency(String name, String rule, List<Path> includeDirectories, List<Path> libraries,
    List<Path> deviceLibraries, List<String> linkFlags) {

  public ResolvedDependency {
    includeDirectories = List.copyOf(includeDirectories);
    libraries = List.copyOf(libraries);
    deviceLibraries = List.copyOf(deviceLibraries);
    linkFlags = List.copyOf(linkFlags);
  }

  /**
   * {@code -L dir -l:file} per library, one rpath per directory, the device libraries (their host
   * side holds the registration the device-link object calls), then the extra flags.
   */
  public List<String> hostLinkFlags() {
    List<String> flags = new ArrayList<>();
    Set<Path> directories = new LinkedHashSet<>();
    for (Path library : libraries) {
      directories.add(library.getParent());
    }
    directories.forEach(d -> flags.add("-L" + d));
    libraries.forEach(l -> flags.add("-l:" + l.getFileName()));
    directories.forEach(d -> flags.add("-Wl,-rpath," + d));
    deviceLibraries.forEach(d -> flags.add(d.toString()));
    flags.addAll(linkFlags);
    return flags;
  }

  public String describe() {
    return name + ": found by " + rule + " (headers in " + includeDirectories + ", libraries "
        + libraries.stream().map(Path::toString).toList() + (deviceLibraries.isEmpty() ? "" : ", device " + deviceLibraries) + ")";
  }
}
