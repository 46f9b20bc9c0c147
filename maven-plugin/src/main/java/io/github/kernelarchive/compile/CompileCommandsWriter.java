package io.github.kernelarchive.compile;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** Writes {@code compile_commands.json} (the clang tooling format) for editors and clangd. */
public final class CompileCommandsWriter {
  private CompileCommandsWriter() {}

  public static void write(Path file, Path workingDirectory, List<CompileJob> jobs) throws IOException {
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < jobs.size(); i++) {
      CompileJob job = jobs.get(i);
      json.append("  {\"directory\": ").append(quote(workingDirectory.toString()))
          .append(", \"file\": ").append(quote(job.source().path().toString()))
          .append(", \"output\": ").append(quote(job.object().toString()))
          .append(", \"arguments\": [");
      for (int a = 0; a < job.argv().size(); a++) {
        json.append(a == 0 ? "" : ", ").append(quote(job.argv().get(a)));
      }
      json.append("]}").append(i + 1 < jobs.size() ? ",\n" : "\n");
    }
    json.append("]\n");
    AtomicFiles.write(file, json.toString().getBytes(StandardCharsets.UTF_8));
  }

  static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
