package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.toolchain.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kernel.jobs larger than the machine: jobs that run here keep to the local slots, jobs a farm
 * launcher takes do not. A stand-in compiler records how many compiles run at once.
 */
class CompileExecutorTest {
  @TempDir Path dir;

  private Path script(String name, String body) throws Exception {
    Path script = Files.writeString(dir.resolve("bin/" + name), "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  /** The most compiles the stand-in saw running at once, over 8 jobs through {@code launcher}. */
  private int mostAtOnce(List<String> launcher, int parallelism, int localSlots) throws Exception {
    return mostAtOnce(launcher, parallelism, localSlots, new RecordingLog());
  }

  private int mostAtOnce(List<String> launcher, int parallelism, int localSlots, RecordingLog log) throws Exception {
    Files.createDirectories(dir.resolve("bin"));
    Path running = Files.createDirectories(dir.resolve("running"));
    Path seen = dir.resolve("seen");
    Files.deleteIfExists(seen);
    // Marks itself running, waits, counts who else is running, then writes the object (-o's argument).
    Path compiler = script("fakecc", "touch '" + running + "'/$$\nsleep 0.4\nls '" + running + "' | wc -l >> '" + seen
        + "'\nrm '" + running + "'/$$\nwhile [ \"$1\" != -o ]; do shift; done\ntouch \"$2\"\n");
    List<IncrementalPlanner.Planned> planned = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Path source = Files.writeString(dir.resolve("src/k" + i + ".c"), "");
      Path object = dir.resolve("obj/k" + i + ".c.o");
      CompileJob job = new CompileJob(new SourceFile("k", dir.resolve("src"), "k" + i + ".c", Language.C), object,
          dir.resolve("obj/k" + i + ".c.o.d"), launcher, List.of(compiler.toString(), "-c", source.toString(), "-o",
          object.toString()), Map.of(), "fake", dir.toString(), dir.resolve("obj").toString());
      planned.add(new IncrementalPlanner.Planned(job, "key" + i, "test"));
    }
    List<CompileExecutor.Outcome> outcomes = new CompileExecutor(new ProcessRunner(Map.of()), parallelism, localSlots,
        dir, null, log).run(planned, new CompileExecutor.ObjectStore() {
          public boolean restore(IncrementalPlanner.Planned p) {
            return false;
          }

          public void compiled(IncrementalPlanner.Planned p) {}
        });
    assertEquals(8, outcomes.stream().filter(CompileExecutor.Outcome::succeeded).count());
    return Files.readAllLines(seen).stream().mapToInt(l -> Integer.parseInt(l.strip())).max().orElseThrow();
  }

  @Test
  void localCompilesKeepToTheLocalSlotsWhileFarmedOnesDoNot() throws Exception {
    Files.createDirectories(dir.resolve("src"));
    int local = mostAtOnce(List.of(), 8, 2);
    assertTrue(local <= 2, "8 jobs with 2 local slots ran " + local + " compiles at once");
    // A farm launcher (here a stand-in named distcc that runs the compile itself) takes no local slot.
    Path distcc = script("distcc", "exec \"$@\"\n");
    int farmed = mostAtOnce(List.of(distcc.toString()), 8, 2);
    assertTrue(farmed > 2, "jobs sent to the farm were held to the local slots: at most " + farmed + " at once");
  }

  @Test
  void aFarmLauncherThatCannotStartIsReplacedByLocalCompilesThatSaySo() throws Exception {
    Files.createDirectories(dir.resolve("src"));
    RecordingLog log = new RecordingLog();
    mostAtOnce(List.of(dir.resolve("bin/no-such/distcc").toString()), 4, 2, log);
    assertEquals(8, log.lines().stream().filter(l -> l.contains("(distcc could not be started (")
        && l.endsWith("; compiled locally)")).count(), log.text());
  }
}
