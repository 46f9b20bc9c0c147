package io.github.kernelarchive.pythontest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.nativetest.TestResult;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.wheelfile.WheelEntry;
import io.github.kernelarchive.wheelfile.WheelWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Test files run against a wheel installed offline into a fresh venv, with Debian's Python. */
class PythonTestsTest {
  private static final String PYTHON = "/usr/bin/python3";

  @TempDir Path dir;

  @Test
  void eachFileIsOneTestThatPassesFailsOrSkipsByItsExitStatus() throws Exception {
    boolean present = Files.isExecutable(Path.of(PYTHON))
        && new ProcessBuilder(PYTHON, "-c", "import venv, ensurepip").start().waitFor() == 0;
    if (!present) {
      System.out.println("SKIPPED: " + PYTHON + " lacks venv or ensurepip (apt-get install python3-venv); the Python"
          + " tests' runner is not tested");
    }
    assumeTrue(present, "no Python with venv");
    Path wheel = dir.resolve("pt-1.0-py3-none-any.whl");
    WheelWriter.write(wheel, "pt-1.0.dist-info", List.of(WheelEntry.text("pt/__init__.py", "VALUE = 3\n"),
        WheelEntry.text("pt-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pt\nVersion: 1.0\n"),
        WheelEntry.text("pt-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
            + "Tag: py3-none-any\n")), FileTime.fromMillis(0));
    Path tests = Files.createDirectories(dir.resolve("src/test/python"));
    Files.writeString(tests.resolve("test_ok.py"), "import pt\nassert 'site-packages' in pt.__file__\nassert pt.VALUE == 3\n");
    Files.writeString(tests.resolve("test_bad.py"), "import pt\nassert pt.VALUE == 4, 'VALUE is %d' % pt.VALUE\n");
    Files.writeString(tests.resolve("test_skip.py"), "import sys\nsys.stderr.write('no GPU here\\n')\nsys.exit(77)\n");
    Files.writeString(tests.resolve("helper.py"), "raise SystemExit(1)\n");

    RecordingLog log = new RecordingLog();
    PythonTests.Summary summary = new PythonTests(log).run(new PythonTests.Request(wheel, tests, dir.resolve("work"),
        dir.resolve("reports"), PYTHON, List.of(), null, Duration.ofSeconds(60), null));

    List<String> outcomes = summary.results().stream().map(r -> r.name() + " " + r.outcome()).toList();
    assertEquals(List.of("test_bad FAILED", "test_ok PASSED", "test_skip SKIPPED"), outcomes);
    TestResult bad = summary.results().get(0);
    assertTrue(bad.message().contains("AssertionError: VALUE is 3"), bad.message());
    assertEquals("no GPU here", summary.results().get(2).message());
    assertEquals(List.of("test_bad: " + bad.message()), summary.problems());
    String report = Files.readString(summary.report());
    assertTrue(report.contains("tests=\"3\"") && report.contains("failures=\"1\"") && report.contains("skipped=\"1\""),
        report);

    PythonTests.Summary one = new PythonTests(log).run(new PythonTests.Request(wheel, tests, dir.resolve("work"),
        dir.resolve("reports"), PYTHON, List.of(), "test_ok", Duration.ofSeconds(60), null));
    assertEquals(List.of("test_ok"), one.results().stream().map(TestResult::name).toList());
  }
}
