package io.github.kernelarchive.compile;

import java.util.List;
import java.util.Map;

/**
 * How one language is compiled in this build: the launcher, the command prefix (compiler + fixed
 * flags such as {@code -gencode}), the environment, and the identity of every tool involved.
 */
public record CompilerSetup(List<String> launcher, List<String> commandPrefix, Map<String, String> environment,
    String identity) {
  public CompilerSetup {
    launcher = List.copyOf(launcher);
    commandPrefix = List.copyOf(commandPrefix);
    environment = Map.copyOf(environment);
  }
}
