package io.github.kernelarchive.scan;

import java.nio.file.Path;

/**
 * A source found by the scan.
 *
 * @param unit {@link SourceSet#HOST} or the archive it belongs to
 * @param root the declared source directory
 * @param relativePath path below the root with {@code /} separators; the object mirrors it
 * @param language chosen by extension
 */
public record SourceFile(String unit, Path root, String relativePath, Language language) {

  public Path path() {
    return root.resolve(relativePath);
  }

  /** How progress lines and errors name the source: the path, prefixed by its archive. */
  public String displayName() {
    return SourceSet.HOST.equals(unit) ? relativePath : unit + "/" + relativePath;
  }
}
