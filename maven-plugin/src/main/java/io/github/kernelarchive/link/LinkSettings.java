package io.github.kernelarchive.link;

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
 */
public record LinkSettings(List<String> exports, List<String> linkFlags, boolean privateArchives,
    CudaRuntime cudaRuntime, String symbolVersion) {
  public LinkSettings {
    exports = List.copyOf(exports);
    linkFlags = List.copyOf(linkFlags);
  }
}
