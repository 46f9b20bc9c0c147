package io.github.kernelarchive.deps;

import java.nio.file.Path;
import java.util.List;

/**
 * The native libraries to find and build against, and where besides the usual places.
 *
 * @param root prefix of the distro and system directories searched ({@code /})
 * @param sitePackages extra Python site-packages directories searched for NVIDIA wheels
 */
public record DependencySettings(List<NativeDependency> dependencies, Path root, List<Path> sitePackages) {
  public static final DependencySettings NONE = new DependencySettings(List.of(), Path.of("/"), List.of());

  public DependencySettings {
    dependencies = List.copyOf(dependencies);
    sitePackages = List.copyOf(sitePackages);
  }
}
