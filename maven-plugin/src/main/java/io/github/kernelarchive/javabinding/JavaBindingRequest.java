package io.github.kernelarchive.javabinding;

import java.nio.file.Path;
import java.util.List;

/**
 * One generated binding class.
 *
 * @param header the public header to read
 * @param includeDirectory the library's headers: what they declare is bound, what system headers declare is not
 * @param library the library's name, as {@code KernelLibrary.load} finds it in the kernel jar
 * @param exports the library's export patterns: functions they do not match are left out
 * @param sourceDirectory where the class goes ({@code target/generated-sources/kernel})
 * @param workDirectory for castxml's output
 */
public record JavaBindingRequest(Path header, Path includeDirectory, String packageName, String className,
    String library, List<String> exports, Path sourceDirectory, Path workDirectory) {
  public JavaBindingRequest {
    exports = List.copyOf(exports);
  }
}
