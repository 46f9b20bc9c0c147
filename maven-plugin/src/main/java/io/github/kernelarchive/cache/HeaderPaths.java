package io.github.kernelarchive.cache;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Header paths as manifests record them: relative to the project when inside it, so an entry made
 * in one checkout is checked against the same headers of another; absolute otherwise (system
 * headers, an SDK elsewhere).
 */
public final class HeaderPaths {
  private final Path projectDirectory;

  public HeaderPaths(Path projectDirectory) {
    this.projectDirectory = projectDirectory.toAbsolutePath().normalize();
  }

  public String portable(String absolute) {
    Path path = Path.of(absolute).normalize();
    return path.startsWith(projectDirectory) ? projectDirectory.relativize(path).toString() : absolute;
  }

  public Path resolve(String portable) {
    Path path = Path.of(portable);
    return path.isAbsolute() ? path : projectDirectory.resolve(path).normalize();
  }

  /** Whether every header still has the recorded content, by {@code hashOf} (empty: unreadable). */
  public boolean unchanged(List<Manifest.Header> headers, Function<Path, Optional<String>> hashOf) {
    for (Manifest.Header header : headers) {
      if (!hashOf.apply(resolve(header.path())).map(header.sha256()::equals).orElse(false)) {
        return false;
      }
    }
    return true;
  }
}
