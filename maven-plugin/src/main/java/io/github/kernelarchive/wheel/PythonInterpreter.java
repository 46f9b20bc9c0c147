package io.github.kernelarchive.wheel;

import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What an extension module is built against, asked of the Python that {@code kernel.python}
 * names through its own {@code sysconfig}: the folder of {@code Python.h}, the suffix of extension
 * modules ({@code .cpython-311-x86_64-linux-gnu.so}) and the version.
 */
public record PythonInterpreter(String command, Path include, String extensionSuffix, int major, int minor) {
  private static final String PROBE = "import sys, sysconfig\n"
      + "print(sysconfig.get_paths()['include'])\n"
      + "print(sysconfig.get_config_var('EXT_SUFFIX'))\n"
      + "print(sys.version_info[0]); print(sys.version_info[1])\n";

  /** @param command {@code kernel.python}: a name on the PATH or a path */
  public static PythonInterpreter probe(String command, Map<String, String> environment) throws ToolchainException {
    ProcessResult result;
    try {
      result = new ProcessRunner(environment).run(List.of(command, "-c", PROBE), null);
    } catch (IOException e) {
      throw new ToolchainException("kernel.python is '" + command + "', which cannot be run (" + e.getMessage()
          + "): install Python 3 with its headers (apt-get install python3-dev) or point kernel.python at one.");
    }
    List<String> lines = result.output().lines().toList();
    if (result.exitCode() != 0 || lines.size() < 4) {
      throw new ToolchainException("kernel.python '" + command + "' could not tell its sysconfig (exit "
          + result.exitCode() + "):\n" + result.output());
    }
    Path include = Path.of(lines.get(0).trim());
    if (!include.resolve("Python.h").toFile().isFile()) {
      throw new ToolchainException(include.resolve("Python.h") + " is missing, so no extension module can be built"
          + " against " + command + ": install its headers (apt-get install python3-dev) or point kernel.python at a"
          + " Python that has them.");
    }
    return new PythonInterpreter(command, include, lines.get(1).trim(), Integer.parseInt(lines.get(2).trim()),
        Integer.parseInt(lines.get(3).trim()));
  }
}
