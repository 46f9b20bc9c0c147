package io.github.kernelarchive.link;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The symbol version node a privately linked library puts on its exports, as glibc puts
 * {@code GLIBC_2.34} on its own. A program or library linked against this build records
 * {@code kv_report@KV_2}; the loader then passes over another ABI's {@code kv_report@KV_1}, even
 * when that one was loaded first. The node names the library and its ABI, not its release: like
 * glibc's nodes and libfoo's {@code FOO_1}, it stays the same across the releases of one major
 * version, so a program linked against 1.0.0 keeps loading with 1.0.1, and changes when the major
 * does (a break). Before 1.0, each minor version may break, as Cargo reads semver: {@code 0.3.x}
 * gives {@code KV_0.3}.
 */
public final class SymbolVersion {
  /** What ld.bfd, gold, lld and mold all accept as a node name in a version script, unquoted. */
  private static final Pattern NODE = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");
  /** The major version, and the minor one where the major is 0: {@code 2.1.0-SNAPSHOT} gives {@code 2}. */
  private static final Pattern ABI = Pattern.compile("(0\\.[0-9]+|[1-9][0-9]*)(?:[.-].*)?");

  private SymbolVersion() {}

  /**
   * {@code kv} at {@code 2.1.0-SNAPSHOT} gives {@code KV_2}, at {@code 0.3.1} {@code KV_0.3};
   * a version that does not start with a number is taken whole ({@code dev} gives {@code KV_dev});
   * without a version, {@code KV}.
   */
  public static String defaultFor(String library, String projectVersion) {
    String abi = projectVersion;
    if (projectVersion != null) {
      Matcher major = ABI.matcher(projectVersion);
      abi = major.matches() ? major.group(1) : projectVersion;
    }
    String node = library.toUpperCase(Locale.ROOT) + (abi == null ? "" : "_" + abi);
    node = node.replaceAll("[^A-Za-z0-9_.]", "_");
    return Character.isDigit(node.charAt(0)) ? "_" + node : node;
  }

  /** Fails, naming the parameter, for a name the linkers would not take. */
  public static String requireValid(String node) throws BuildFailureException {
    if (node == null || !NODE.matcher(node).matches()) {
      throw new BuildFailureException("<symbolVersion> (kernel.symbolVersion) is '" + node + "': a version node name"
          + " is a letter or '_' followed by letters, digits, '_' or '.', such as KV_2. Leave it out for"
          + " <LIBRARY>_<major version of the project>.");
    }
    return node;
  }
}
