package io.github.kernelarchive.wheel;

/**
 * {@code <package>/_native.py}, which a ctypes wheel carries so that its wrapper need not find the
 * library itself: every such wrapper otherwise repeats the same path arithmetic, and gets it
 * wrong when {@code <package>} is nested or the wrapper moves. The wrapper becomes
 * {@code from ._native import lib} and its declarations.
 */
final class NativeLoaderSource {
  static final String FILE = "_native.py";

  private NativeLoaderSource() {}

  /**
   * @param library the file name in the package, {@code libsum.so}
   * @param distribution the wheel's name, for the error a failed load raises
   */
  static String of(String library, String distribution) {
    return """
        \"""Loads %1$s, which the %2$s wheel put beside this file (written by kernel-archive-maven-plugin).

        In the package's __init__.py:

            from ._native import lib
            lib.my_function.restype = ctypes.c_int

        The library is opened privately (RTLD_LOCAL), so its symbols never bind to another copy of the
        same kernels in the process; what it needs comes through its own $ORIGIN-relative RPATH (the
        libraries vendored in the wheel, NVIDIA's runtime wheels).
        \"""
        import ctypes as _ctypes
        import os as _os

        path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "%1$s")
        try:
            lib = _ctypes.CDLL(path, mode=_ctypes.RTLD_LOCAL)
        except OSError as _error:
            raise ImportError("%2$s: could not load " + path + " (" + str(_error) + "). Reinstall the wheel with pip,"
                              " which also installs the wheels it requires.") from _error
        """.formatted(inString(library), inString(distribution));
  }

  /**
   * {@code text} as it may stand inside a double-quoted Python string. The names are checked
   * elsewhere (a distribution name, a library's file name), but a name must never end the string.
   */
  private static String inString(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
