package io.github.kernelarchive.nativejar;

import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

/**
 * What goes into a kernel jar for Java consumers.
 *
 * @param project the project's folder: the jar holds no header from outside it (a symbolic link out fails)
 * @param library the linked {@code lib<name>.so}; the files it NEEDs from its own folder go too
 * @param name the library's name ({@code mha})
 * @param platform the classifier ({@code linux-x86_64}): the folder under {@code META-INF/native}
 * @param headers the public headers, carried for the Java bindings generator; null for none
 * @param exports the export patterns (the bindings cover what they match)
 * @param cudaRuntime {@code static}, {@code shared}, {@code stub} or {@code none}
 * @param glibcTarget the glibc the library was held to ({@code kernel.glibc}); empty without one
 * @param jar where to write it
 */
public record NativeJarRequest(Path project, Path library, String name, String platform, Path headers, List<String> exports,
    String cudaRuntime, String glibcTarget, Path jar, FileTime time, String createdBy) {
  public NativeJarRequest {
    exports = List.copyOf(exports);
  }
}
