package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.wheel.PythonInterpreter;
import io.github.kernelarchive.wheel.WheelRequest;
import java.util.Map;
import org.apache.maven.plugin.MojoFailureException;

/**
 * {@code <wheel><module>} and {@code <limitedApi>}: what the build goal compiles against (Python's
 * headers, {@code Py_LIMITED_API}) and exports ({@code PyInit_<module>}), and the tags the wheel goal gives.
 */
final class PythonModule {
  private PythonModule() {}

  /** The extension module the wheel holds, or null when the library is loaded through ctypes. */
  static WheelRequest.Extension extension(WheelConfig wheel, String python) throws MojoFailureException, ToolchainException {
    if (!wanted(wheel)) {
      return null;
    }
    int[] limited = limitedApi(wheel);
    if (limited != null) {
      String tag = "cp" + limited[0] + limited[1];
      return new WheelRequest.Extension(wheel.module, ".abi3.so", tag, "abi3");
    }
    PythonInterpreter interpreter = PythonInterpreter.probe(python, Map.of());
    String tag = "cp" + interpreter.major() + interpreter.minor();
    return new WheelRequest.Extension(wheel.module, interpreter.extensionSuffix(), tag, tag);
  }

  /** {@code Py_LIMITED_API}'s value for {@code <limitedApi>3.9}: {@code 0x03090000}; null without one. */
  static String limitedApiDefine(WheelConfig wheel) throws MojoFailureException {
    int[] limited = limitedApi(wheel);
    return limited == null ? null : String.format("Py_LIMITED_API=0x%02x%02x0000", limited[0], limited[1]);
  }

  /** Whether the library is an extension module; its name checked when it is. */
  static boolean wanted(WheelConfig wheel) throws MojoFailureException {
    if (wheel == null || wheel.module == null || wheel.module.isBlank()) {
      return false;
    }
    checkName(wheel.module);
    return true;
  }

  private static void checkName(String module) throws MojoFailureException {
    if (!module.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new MojoFailureException("<wheel><module> is '" + module + "': a module name is a Python identifier"
          + " (letters, digits, '_'), such as _mha.");
    }
  }

  private static int[] limitedApi(WheelConfig wheel) throws MojoFailureException {
    if (wheel.limitedApi == null || wheel.limitedApi.isBlank()) {
      return null;
    }
    if (!wheel.limitedApi.strip().matches("3\\.\\d{1,2}")) {
      throw new MojoFailureException("<wheel><limitedApi> is '" + wheel.limitedApi + "': give the oldest Python 3"
          + " release of the stable ABI, such as 3.9.");
    }
    String[] parts = wheel.limitedApi.strip().split("\\.");
    return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
  }
}
