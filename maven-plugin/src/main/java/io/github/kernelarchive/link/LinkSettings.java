package io.github.kernelarchive.link;

import io.github.kernelarchive.glibc.GlibcTarget;
import java.util.List;

/**
 * What the user configured about the link.
 *
 * @param exports symbol patterns of the public API; empty exports every visible symbol
 * @param linkFlags extra flags for the final link
 * @param privateArchives archives linked privately into the one library (the default); false: each
 *     archive becomes its own shared library that the main library depends on
 * @param cudaRuntime how CUDA objects reach the runtime
 * @param symbolVersion the version node on the exports of the privately linked library ({@link SymbolVersion})
 * @param glibc the oldest glibc the library must load on; null: the build host's
 * @param staticRuntime libstdc++ and libgcc linked statically and privately ({@code -static-libstdc++
 *     -static-libgcc}, their symbols hidden)
 */
public record LinkSettings(List<String> exports, List<String> linkFlags, boolean privateArchives,
    CudaRuntime cudaRuntime, String symbolVersion, GlibcTarget glibc, boolean staticRuntime) {
  public LinkSettings {
    exports = List.copyOf(exports);
    linkFlags = List.copyOf(linkFlags);
  }

  /** For the build host's glibc, with the shared C++ runtime. */
  public LinkSettings(List<String> exports, List<String> linkFlags, boolean privateArchives, CudaRuntime cudaRuntime,
      String symbolVersion) {
    this(exports, linkFlags, privateArchives, cudaRuntime, symbolVersion, null, false);
  }

  /** The same, for the systems {@code glibc} names, with the C++ runtime linked as {@code staticRuntime} says. */
  public LinkSettings forTarget(GlibcTarget glibc, boolean staticRuntime) {
    return new LinkSettings(exports, linkFlags, privateArchives, cudaRuntime, symbolVersion, glibc, staticRuntime);
  }
}
