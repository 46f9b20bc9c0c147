package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;

/** One test program: a source with its own {@code main}, named after the file without its extension. */
public record TestProgram(String name, SourceFile main) {
  /** Whether it needs a GPU to run: CUDA and HIP programs share it, so few run at once. */
  public boolean gpu() {
    return main.language() == Language.CUDA || main.language() == Language.HIP;
  }
}
