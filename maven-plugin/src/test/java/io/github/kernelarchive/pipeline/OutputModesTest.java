package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Outputs and cache files get the build's umask, like any compiler's output: a library installed
 * into an image by root must be readable by the user that runs it, a group's shared cache by the group.
 * The build runs in its own process, started by a shell that sets the umask.
 */
class OutputModesTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "umask {0}")
  @CsvSource({"022, rwxr-xr-x, rw-r--r--", "002, rwxrwxr-x, rw-rw-r--"})
  void outputsAndCacheEntriesHonourTheUmask(String umask, String library, String file) throws Exception {
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    Projects.generate(project, 6);
    String command = String.join(" ", BuildMain.process(project, cache, 2).command().stream()
        .map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
    Process build = new ProcessBuilder("sh", "-c", "umask " + umask + " && exec " + command)
        .redirectErrorStream(true).start();
    String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, build.waitFor(), output);

    Path out = project.resolve("target/kernel");
    assertEquals(library, mode(out.resolve("libk.so")), "the library");
    for (String name : List.of("libk.a", "audit.txt", "compile_commands.json")) {
      assertEquals(file, mode(out.resolve(name)), name);
    }
    List<Path> cached = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(cache)) {
      walk.filter(Files::isRegularFile).forEach(cached::add);
    }
    assertEquals(true, cached.size() > 6, cached.toString());
    for (Path entry : cached) {
      assertEquals(file, mode(entry), entry.toString());
    }
  }

  private static String mode(Path file) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
  }
}
