package io.github.kernelarchive.compile;

import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.Json;
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
      json.append("  {\"directory\": ").append(Json.quote(workingDirectory.toString()))
          .append(", \"file\": ").append(Json.quote(job.source().path().toString()))
          .append(", \"output\": ").append(Json.quote(job.object().toString()))
          .append(", \"arguments\": [");
      for (int a = 0; a < job.argv().size(); a++) {
        json.append(a == 0 ? "" : ", ").append(Json.quote(job.argv().get(a)));
      }
      json.append("]}").append(i + 1 < jobs.size() ? ",\n" : "\n");
    }
    json.append("]\n");
    AtomicFiles.writeIfChanged(file, json.toString().getBytes(StandardCharsets.UTF_8));
  }
}
