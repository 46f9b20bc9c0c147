package io.github.kernelarchive.deps;

import io.github.kernelarchive.bundle.KernelDependency;
import java.nio.file.Path;
import java.util.List;

/**
 * The native libraries to find and build against, and where besides the usual places; and the
 * kernel libraries Maven resolved ({@code <type>kernel</type>}), linked privately.
 *
 * @param root prefix of the distro and system directories searched ({@code /})
 * @param sitePackages extra Python site-packages directories searched for NVIDIA wheels
 * @param kernels kernel bundles, nearest dependency first
 */
public record DependencySettings(List<NativeDependency> dependencies, Path root, List<Path> sitePackages,
    List<KernelDependency> kernels) {
  public static final DependencySettings NONE = new DependencySettings(List.of(), Path.of("/"), List.of(), List.of());

  public DependencySettings {
    dependencies = List.copyOf(dependencies);
    sitePackages = List.copyOf(sitePackages);
    kernels = List.copyOf(kernels);
  }
}
