package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * GNU {@code @file} response files, read by gcc, ld, ar and llvm-ar: one argument per line, each
 * double-quoted with {@code \} and {@code "} escaped, so spaces, quotes and a leading {@code @}
 * survive, and command lines never overflow however many objects there are. Written here: Plexus
 * Utils quotes arguments for a shell command line, which is another grammar.
 */
public final class ResponseFile {
  private ResponseFile() {}

  public static String format(List<String> arguments) {
    StringBuilder text = new StringBuilder();
    for (String argument : arguments) {
      // Whole strings, escaped only where needed: a loop per character was, with thousands of
      // paths, hot enough for the JIT to compile it twice (about 100 ms of compiler time).
      text.append('"');
      if (argument.indexOf('\\') < 0 && argument.indexOf('"') < 0) {
        text.append(argument);
      } else {
        text.append(argument.replace("\\", "\\\\").replace("\"", "\\\""));
      }
      text.append("\"\n");
    }
    return text.toString();
  }

  /** Writes the file and returns the {@code @path} argument that refers to it. */
  public static String write(Path file, List<String> arguments) throws IOException {
    AtomicFiles.write(file, format(arguments).getBytes(StandardCharsets.UTF_8));
    return "@" + file;
  }
}
