package io.github.kernelarchive.link;

import java.nio.file.Path;
import java.util.List;

/**
 * What goes into the shared library.
 *
 * @param libraryName {@code mha} gives {@code libmha.so}
 * @param objects objects in link order
 * @param exports symbol patterns of the public API; empty exports every visible symbol
 * @param linkFlags extra flags from the user, after the objects
 * @param cudaLibraryDirectory where {@code libcudart_static.a} lives, when CUDA objects are linked
 */
public record LinkRequest(String libraryName, List<Path> objects, List<String> exports,
    List<String> linkFlags, Path cudaLibraryDirectory) {
  public LinkRequest {
    objects = List.copyOf(objects);
    exports = List.copyOf(exports);
    linkFlags = List.copyOf(linkFlags);
  }
}
