package io.github.kernelarchive.link;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The symbol version node a privately linked library puts on its exports, as glibc puts
 * {@code GLIBC_2.34} on its own. A program or library linked against this build records
 * {@code kv_report@KV_2.0}; the loader then passes over another build's {@code kv_report@KV_1.0},
 * even when that one was loaded first. So two builds of one library must carry different nodes,
 * and the default names the library and the project version.
 */
public final class SymbolVersion {
  /** What ld.bfd, gold, lld and mold all accept as a node name in a version script, unquoted. */
  private static final Pattern NODE = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

  private SymbolVersion() {}

  /** {@code kv} at {@code 2.0-SNAPSHOT} gives {@code KV_2.0_SNAPSHOT}; without a version, {@code KV}. */
  public static String defaultFor(String library, String projectVersion) {
    String node = library.toUpperCase(Locale.ROOT) + (projectVersion == null ? "" : "_" + projectVersion);
    node = node.replaceAll("[^A-Za-z0-9_.]", "_");
    return Character.isDigit(node.charAt(0)) ? "_" + node : node;
  }

  /** Fails, naming the parameter, for a name the linkers would not take. */
  public static String requireValid(String node) throws BuildFailureException {
    if (node == null || !NODE.matcher(node).matches()) {
      throw new BuildFailureException("<symbolVersion> (kernel.symbolVersion) is '" + node + "': a version node name"
          + " is a letter or '_' followed by letters, digits, '_' or '.', such as KV_2.0. Leave it out for"
          + " <LIBRARY>_<project version>.");
    }
    return node;
  }
}
