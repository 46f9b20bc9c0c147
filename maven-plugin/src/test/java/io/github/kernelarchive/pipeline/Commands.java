package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** Runs a real tool in a test, failing the test with its output when it exits nonzero. */
public final class Commands {
  private Commands() {}

  public static String run(List<String> argv, Path directory) throws Exception {
    Process process = new ProcessBuilder(argv).directory(directory.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, process.waitFor(), String.join(" ", argv) + " failed:\n" + output);
    return output;
  }

  /**
   * dlopen()s {@code library} from a C program built in {@code directory}, calls its
   * {@code int function(int)} with {@code x} and returns what it printed: the library loads and answers.
   */
  public static String callLibrary(Path library, String function, int x, Path directory) throws Exception {
    Path source = java.nio.file.Files.writeString(directory.resolve("load-" + function + ".c"), String.join("\n",
        "#include <dlfcn.h>", "#include <stdio.h>", "#include <stdlib.h>", "int main(int argc, char **argv) {",
        "  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);",
        "  if (!library) { fprintf(stderr, \"%s\\n\", dlerror()); return 1; }",
        "  int (*api)(int) = (int (*)(int)) dlsym(library, \"" + function + "\");",
        "  printf(\"%d\", api(atoi(argv[2])));", "  return 0;", "}", ""));
    Path loader = directory.resolve("load-" + function);
    run(List.of("cc", "-o", loader.toString(), source.toString(), "-ldl"), directory);
    return run(List.of(loader.toString(), library.toString(), Integer.toString(x)), directory).strip();
  }
}
