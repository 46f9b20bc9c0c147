package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which mount a folder is on, from {@code /proc/self/mountinfo}, and whether it forbids executing
 * (and so mapping executable) files from it: {@code System.load} of a library extracted there
 * fails with "failed to map segment from shared object", which names neither the mount nor the fix.
 */
final class MountTable {
  /** @param point where it is mounted; @param type its file system; @param options its per-mount options */
  record Mount(String point, String type, List<String> options) {
    boolean noexec() {
      return options.contains("noexec");
    }

    @Override
    public String toString() {
      return point + " (" + type + ", " + String.join(",", options) + ")";
    }
  }

  private MountTable() {}

  /** The mount {@code folder} is on; empty where mountinfo cannot be read (not Linux). */
  static Optional<Mount> of(Path folder) {
    Path mountinfo = Path.of("/proc/self/mountinfo");
    if (!Files.isReadable(mountinfo)) {
      return Optional.empty();
    }
    try {
      String path = folder.toRealPath().toString();
      Mount best = null;
      for (String line : Files.readAllLines(mountinfo)) {
        // id parent major:minor root point options [optional fields...] - type source super-options
        String[] fields = line.split(" ");
        int dash = Arrays.asList(fields).indexOf("-");
        if (fields.length < 7 || dash < 0 || dash + 1 >= fields.length) {
          continue;
        }
        String point = unescape(fields[4]);
        boolean inside = path.equals(point) || path.startsWith(point.endsWith("/") ? point : point + "/");
        // The later of two mounts at one point hides the earlier: take the last longest match.
        if (inside && (best == null || point.length() >= best.point().length())) {
          best = new Mount(point, fields[dash + 1], List.of(fields[5].split(",")));
        }
      }
      return Optional.ofNullable(best);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** mountinfo writes space, tab, newline and backslash as octal escapes. */
  private static String unescape(String field) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
