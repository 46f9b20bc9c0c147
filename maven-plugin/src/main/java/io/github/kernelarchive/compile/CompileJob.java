package io.github.kernelarchive.compile;

import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.util.Hashing;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One compiler invocation: a source, the object it makes, and the exact argument vector.
 *
 * @param launcher words run before the compiler ({@code ccache}, {@code distcc}); not part of the
 *     key, since a launcher does not change the object
 * @param argv the compiler and its arguments
 * @param depfile where the compiler writes the headers it read ({@code -MD -MF})
 * @param environment variables set for this compiler only (e.g. {@code HIP_PLATFORM})
 * @param toolIdentity identities of every tool whose version affects the object
 * @param projectRoot the project's folder, a placeholder in the key
 * @param objectRoot the folder the objects go into ({@code target/kernel/obj}), a placeholder in the key
 */
public record CompileJob(SourceFile source, Path object, Path depfile, List<String> launcher, List<String> argv,
    Map<String, String> environment, String toolIdentity, String projectRoot, String objectRoot) {

  /**
   * The temporary folder a compiler runs with (hipcc's): where its leftovers go, which cannot change
   * the object, so it stays out of the key.
   */
  public static final String SCRATCH_VARIABLE = "TMPDIR";

  /** Bumped when the meaning of a key changes, so old state is never trusted. */
  private static final String KEY_FORMAT = "kernel-archive compile key 4";

  public CompileJob {
    launcher = List.copyOf(launcher);
    argv = List.copyOf(argv);
    environment = Map.copyOf(environment);
  }

  /** What runs: the launcher, then the compiler with its arguments. */
  public List<String> commandLine() {
    List<String> line = new ArrayList<>(launcher);
    line.addAll(argv);
    return line;
  }

  /**
   * The key of this job for a given source content: equal keys mean an identical compile. The
   * project directory is replaced by a placeholder, so the same sources in another checkout have
   * the same key (objects are checkout-independent through {@code -ffile-prefix-map}) and cache
   * entries can be shared.
   */
  public String key(String sourceHash) {
    List<String> parts = new ArrayList<>();
    parts.add(KEY_FORMAT);
    parts.add(toolIdentity);
    new TreeMap<>(environment).forEach((k, v) -> {
      if (!k.equals(SCRATCH_VARIABLE)) {
        parts.add(k + "=" + v);
      }
    });
    parts.add("--");
    // Where the object goes is not what is in it (as ccache reasons), so a second output folder
    // (another execution of the same sources) shares the keys and compiles nothing; except where
    // the object records a path beside itself (-gsplit-dwarf names its .dwo file).
    boolean recordsItsPath = argv.stream().anyMatch(a -> a.startsWith("-gsplit-dwarf"));
    argv.forEach(arg -> parts.add(withPlaceholder(recordsItsPath ? arg : withPlaceholder(arg, objectRoot, "<objects>"),
        projectRoot, "<project>")));
    parts.add(sourceHash);
    return Hashing.ofStrings(parts);
  }

  /**
   * {@code arg} with {@code placeholder} for each {@code root} that is a whole path prefix there
   * (followed by {@code /}, {@code =}, {@code :} or the end: /w/proj-sdk is not /w/proj). What the
   * regular expression {@code quote(root) + "(?=/|=|:|$)"} replaces, without compiling one per job
   * and matching it in a cold JVM: the no-op build keys every job.
   */
  static String withPlaceholder(String arg, String root, String placeholder) {
    int at = root.isEmpty() ? -1 : arg.indexOf(root);
    if (at < 0) {
      return arg;
    }
    StringBuilder replaced = new StringBuilder(arg.length());
    int from = 0;
    while (at >= 0) {
      int end = at + root.length();
      if (wholePrefixEndsAt(arg, end)) {
        replaced.append(arg, from, at).append(placeholder);
        from = end;
        at = arg.indexOf(root, end);
      } else {
        at = arg.indexOf(root, at + 1);
      }
    }
    return replaced.append(arg, from, arg.length()).toString();
  }

  /** Whether a path prefix ending at {@code end} is whole: what follows is a separator, or the end ($'s). */
  private static boolean wholePrefixEndsAt(String arg, int end) {
    if (end == arg.length()) {
      return true;
    }
    char next = arg.charAt(end);
    if (next == '/' || next == '=' || next == ':') {
      return true;
    }
    // A regular expression's $ also matches before a line terminator that ends the input.
    String rest = arg.substring(end);
    return rest.equals("\n") || rest.equals("\r\n") || rest.equals("\r") || rest.equals("\u0085")
        || rest.equals("\u2028") || rest.equals("\u2029");
  }
}
