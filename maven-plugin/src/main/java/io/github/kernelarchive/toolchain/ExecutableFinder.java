package io.github.kernelarchive.toolchain;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Resolves a tool name the way a shell would: a path is taken as is, a bare name is looked up on PATH. */
public final class ExecutableFinder {
  private final String searchPath;

  public ExecutableFinder(String searchPath) {
    this.searchPath = searchPath == null ? "" : searchPath;
  }

  public static ExecutableFinder fromEnvironment() {
    return new ExecutableFinder(System.getenv("PATH"));
  }

  public Optional<Path> find(String nameOrPath) {
    if (nameOrPath == null || nameOrPath.isBlank()) {
      return Optional.empty();
    }
    if (nameOrPath.contains("/")) {
      Path path = Path.of(nameOrPath);
      return isExecutable(path) ? Optional.of(path.toAbsolutePath()) : Optional.empty();
    }
    for (String directory : searchPath.split(File.pathSeparator)) {
      if (directory.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(directory, nameOrPath);
      if (isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static boolean isExecutable(Path path) {
    return Files.isRegularFile(path) && Files.isExecutable(path);
  }
}
