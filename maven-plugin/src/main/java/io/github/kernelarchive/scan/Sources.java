package io.github.kernelarchive.scan;

import java.util.List;

/**
 * What the build scans: sources (host and per archive) and prebuilt objects.
 *
 * @param sources host sources ({@link SourceSet#HOST}) and the sources of each archive
 * @param objects prebuilt objects of archives (unit = archive name)
 * @param archives every declared archive, in declaration order
 */
public record Sources(List<SourceSet> sources, List<SourceSet> objects, List<String> archives) {
  public Sources {
    sources = List.copyOf(sources);
    objects = List.copyOf(objects);
    archives = List.copyOf(archives);
  }
}
