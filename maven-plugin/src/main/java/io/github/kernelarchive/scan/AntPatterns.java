package io.github.kernelarchive.scan;

import java.util.Arrays;
import java.util.List;
import org.codehaus.plexus.util.AbstractScanner;
import org.codehaus.plexus.util.MatchPatterns;

/**
 * Ant-style path patterns as Maven users write them: {@code *} and {@code ?} within one path
 * segment, {@code **} for any number of segments (including none, so {@code **}{@code /*.cu}
 * matches {@code a.cu} at the root too). Matching is Plexus Utils' ({@link MatchPatterns}, what
 * Maven's own scanners use: a path is split once and tried against every pattern), case-sensitive
 * as Linux paths are. This adds only the Ant rule that a pattern ending in {@code /} means
 * everything below that folder, and Windows separators written in a pom. Measured against the
 * hand-written matcher it replaced (bench/scan, 10,000 sources): warm scans within the noise, the
 * first scan of a build 15-30 ms slower (loading Plexus's matcher, and the default excludes, a
 * new check); kept, since it matches exactly as Maven's own plugins do.
 */
public final class AntPatterns {
  /** Maven's default excludes: version-control folders, editor backups and locks. */
  public static final AntPatterns DEFAULT_EXCLUDES = of(Arrays.asList(AbstractScanner.DEFAULTEXCLUDES));

  private final MatchPatterns patterns;
  private final boolean empty;

  private AntPatterns(List<String> patterns) {
    this.patterns = MatchPatterns.from(patterns.stream().map(AntPatterns::normalize).toList());
    this.empty = patterns.isEmpty();
  }

  public static AntPatterns of(List<String> patterns) {
    return new AntPatterns(patterns);
  }

  private static String normalize(String pattern) {
    String normalized = pattern.replace('\\', '/');
    return normalized.endsWith("/") ? normalized + "**" : normalized;
  }

  public boolean isEmpty() {
    return empty;
  }

  /** @param relativePath a path relative to the scanned folder, with {@code /} separators */
  public boolean matches(String relativePath) {
    // No patterns match nothing; Plexus would still split the path first (7% of a 5,000-object scan).
    return !empty && patterns.matches(relativePath, true);
  }
}
