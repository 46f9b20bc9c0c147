package io.github.kernelarchive.scan;

import java.nio.file.Path;
import java.util.List;

/**
 * One declared directory of sources: the host sources of the library, or the sources of one
 * archive ({@code unit} is then the archive's name).
 *
 * @param unit where the objects go: {@link #HOST} or an archive name
 * @param directory absolute root of the sources
 * @param includes Ant-style patterns relative to the root; empty means every known extension
 * @param excludes Ant-style patterns relative to the root
 */
public record SourceSet(String unit, Path directory, List<String> includes, List<String> excludes) {
  /** The unit of sources linked directly into the library rather than archived. */
  public static final String HOST = "host";

  public SourceSet {
    includes = List.copyOf(includes);
    excludes = List.copyOf(excludes);
  }

  public boolean isHost() {
    return HOST.equals(unit);
  }
}
