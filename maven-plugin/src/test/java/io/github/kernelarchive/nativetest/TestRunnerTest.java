package io.github.kernelarchive.nativetest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real programs (shell scripts) run as test programs: each way one can end, and what the report says. */
class TestRunnerTest {
  @TempDir
  Path dir;

  private TestRunner.Runnable program(String name, String script) throws IOException {
    Path file = dir.resolve("bin").resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/bin/sh\n" + script + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    TestProgram program = new TestProgram(name, new SourceFile(TestPrograms.UNIT, dir, name + ".c", Language.C));
    return new TestRunner.Runnable(program, file, List.of());
  }

  private List<TestResult> run(Duration timeout, TestRunner.Runnable... programs) throws InterruptedException {
    return new TestRunner(2, 1, timeout, Map.of("GREETING", "hello"), dir.resolve("run"), new RecordingLog())
        .run(List.of(programs));
  }

  @Test
  void eachWayAProgramEndsIsReportedAsTheConventionsSay() throws Exception {
    List<TestResult> results = run(Duration.ofSeconds(60),
        program("pass", "echo \"$GREETING from $(basename \"$PWD\")\""),
        program("fail", "echo checking; echo 'wrong answer' >&2; exit 3"),
        program("skip", "echo 'probing' >&2; echo 'no GPU here' >&2; exit 77"),
        program("crash", "kill -SEGV $$"));
    TestResult pass = results.get(0);
    assertEquals(Outcome.PASSED, pass.outcome());
    assertNull(pass.message());
    assertEquals("hello from pass\n", pass.stdout(), "the environment given, in a working folder of its own");
    TestResult fail = results.get(1);
    assertEquals(Outcome.FAILED, fail.outcome());
    assertEquals("exit status 3", fail.message());
    assertEquals("checking\nwrong answer", fail.detail());
    TestResult skip = results.get(2);
    assertEquals(Outcome.SKIPPED, skip.outcome());
    assertEquals("no GPU here", skip.message(), "the last line on standard error");
    TestResult crash = results.get(3);
    assertEquals(Outcome.FAILED, crash.outcome());
    assertEquals("signal SIGSEGV (exit status 139)", crash.message());
    assertTrue(Files.readString(dir.resolve("run/fail/stderr.txt")).contains("wrong answer"));
  }

  @Test
  void aProgramPastItsTimeoutIsKilledWithWhatItStarted() throws Exception {
    Path pidFile = dir.resolve("child.pid");
    long start = System.nanoTime();
    List<TestResult> results = run(Duration.ofSeconds(1),
        program("hang", "sleep 300 & echo $! > " + pidFile + "; echo started; wait"));
    double seconds = (System.nanoTime() - start) / 1e9;
    TestResult hang = results.get(0);
    assertEquals(Outcome.FAILED, hang.outcome());
    assertEquals("timed out after 1 s (kernel.test.timeout); its process group was killed", hang.message());
    assertEquals("started", hang.detail());
    assertTrue(seconds < 60, "the runner did not wait for the child: " + seconds + " s");
    long child = Long.parseLong(Files.readString(pidFile).strip());
    assertTrue(!running(child), "sleep " + child + " still runs");
  }

  /** Whether {@code pid} runs: it exists and is no zombie (an orphan's exit status may wait for its reaper). */
  private static boolean running(long pid) throws IOException {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    if (!Files.exists(stat)) {
      return false;
    }
    try {
      String text = Files.readString(stat);
      return text.charAt(text.lastIndexOf(')') + 2) != 'Z';
    } catch (java.nio.file.NoSuchFileException e) {
      return false;
    }
  }

  @Test
  void gpuProgramsRunOneAtATimeBesideCpuPrograms() throws Exception {
    Path log = dir.resolve("order.log");
    List<TestRunner.Runnable> programs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      TestRunner.Runnable cpu = program("gpu" + i, "echo start >> " + log + "; sleep 0.3; echo end >> " + log);
      programs.add(new TestRunner.Runnable(new TestProgram("gpu" + i,
          new SourceFile(TestPrograms.UNIT, dir, "gpu" + i + ".cu", Language.CUDA)), cpu.executable(), List.of()));
    }
    List<TestResult> results = new TestRunner(3, 1, Duration.ofSeconds(60), Map.of(), dir.resolve("run"),
        new RecordingLog()).run(programs);
    assertTrue(results.stream().allMatch(r -> r.outcome() == Outcome.PASSED));
    assertEquals(List.of("start", "end", "start", "end", "start", "end"), Files.readAllLines(log),
        "with gpuJobs 1, no two CUDA programs overlap");
  }

  @Test
  void aSanitizersFindingIsTheFailuresMessage() {
    assertEquals("AddressSanitizer: heap-buffer-overflow on address 0x6030; exit status 1", TestRunner.failure(1,
        "=================================================================\n==42==ERROR: AddressSanitizer:"
            + " heap-buffer-overflow on address 0x6030\nREAD of size 4\n"));
    assertEquals("UndefinedBehaviorSanitizer: sums.c:4:11: runtime error: signed integer overflow; exit status 1",
        TestRunner.failure(1, "sums.c:4:11: runtime error: signed integer overflow\n"));
    assertEquals("compute-sanitizer: ERROR SUMMARY: 2 errors; exit status 1",
        TestRunner.failure(1, "========= Invalid __global__ read\n========= ERROR SUMMARY: 2 errors\n"));
    assertEquals("exit status 2", TestRunner.failure(2, "========= ERROR SUMMARY: 0 errors\n"));
  }
}
