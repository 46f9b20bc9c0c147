package io.github.kernelarchive.compile;

import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.util.Hashing;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One compiler invocation: a source, the object it makes, and the exact argument vector.
 *
 * @param launcher words run before the compiler ({@code ccache}, {@code distcc}); not part of the
 *     key, since a launcher does not change the object
 * @param argv the compiler and its arguments
 * @param depfile where the compiler writes the headers it read ({@code -MD -MF})
 * @param environment variables set for this compiler only (e.g. {@code HIP_PLATFORM})
 * @param toolIdentity identities of every tool whose version affects the object
 */
public record CompileJob(SourceFile source, Path object, Path depfile, List<String> launcher, List<String> argv,
    Map<String, String> environment, String toolIdentity, String projectRoot) {

  /** Bumped when the meaning of a key changes, so old state is never trusted. */
  private static final String KEY_FORMAT = "kernel-archive compile key 3";

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
    new TreeMap<>(environment).forEach((k, v) -> parts.add(k + "=" + v));
    parts.add("--");
    // Only where the project directory is a whole path prefix: /w/proj-sdk is not /w/proj.
    Pattern root = Pattern.compile(Pattern.quote(projectRoot) + "(?=/|=|:|$)");
    argv.forEach(arg -> parts.add(root.matcher(arg).replaceAll("<project>")));
    parts.add(sourceHash);
    return Hashing.ofStrings(parts);
  }
}
