package io.github.kernelarchive.scan;

/**
 * Ant-style path patterns as Maven users write them: {@code *} and {@code ?} within one path
 * segment, {@code **} for any number of segments (including none, so {@code **}{@code /*.cu}
 * matches {@code a.cu} at the root too).
 */
public final class AntPattern {
  private final String[] segments;

  public AntPattern(String pattern) {
    String normalized = pattern.replace('\\', '/');
    if (normalized.endsWith("/")) {
      normalized = normalized + "**";
    }
    this.segments = normalized.split("/+");
  }

  public boolean matches(String relativePath) {
    return matchSegments(0, relativePath.split("/"), 0);
  }

  private boolean matchSegments(int p, String[] path, int s) {
    if (p == segments.length) {
      return s == path.length;
    }
    if (segments[p].equals("**")) {
      for (int skip = s; skip <= path.length; skip++) {
        if (matchSegments(p + 1, path, skip)) {
          return true;
        }
      }
      return false;
    }
    return s < path.length && matchName(segments[p], 0, path[s], 0) && matchSegments(p + 1, path, s + 1);
  }

  private static boolean matchName(String pattern, int p, String name, int n) {
    while (p < pattern.length()) {
      char c = pattern.charAt(p);
      if (c == '*') {
        for (int rest = n; rest <= name.length(); rest++) {
          if (matchName(pattern, p + 1, name, rest)) {
            return true;
          }
        }
        return false;
      }
      if (n == name.length() || (c != '?' && c != name.charAt(n))) {
        return false;
      }
      p++;
      n++;
    }
    return n == name.length();
  }
}
