package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What distcc's verbose output tells, as distcc 3.4 prints it, and what the build log keeps of it. */
class FarmLauncherReportTest {
  private static final String FELL_BACK = String.join("\n",
      "distcc[22370] (dcc_scan_args) found input file \"dv.c\"",
      "distcc[22370] compile from dv.c to dv.o",
      "distcc[22370] exec on 127.0.0.1:9/2: x86_64-linux-gnu-gcc -c dv.c -o dv.o",
      "distcc[22370] ERROR: nonblocking connect to 127.0.0.1:9 failed: Connection refused",
      "distcc[22370] (dcc_mark_timefile) mark /root/.distcc/lock/backoff_tcp_127.0.0.1_9_0",
      "distcc[22370] Warning: failed to distribute dv.c to 127.0.0.1:9/2, running locally instead",
      "distcc[22370] exec on localhost: x86_64-linux-gnu-gcc -c dv.c -o dv.o",
      "dv.c:1:5: warning: unused variable 'x' [-Wunused-variable]", "");

  @Test
  void theLastExecLineNamesTheHostAndOnlyNoticesAndTheCompilersOwnOutputStay() {
    FarmLauncher.Report report = FarmLauncher.read("distcc", FELL_BACK, true);
    assertEquals("localhost", report.host());
    assertEquals(List.of("distcc[22370] ERROR: nonblocking connect to 127.0.0.1:9 failed: Connection refused",
        "distcc[22370] Warning: failed to distribute dv.c to 127.0.0.1:9/2, running locally instead",
        "dv.c:1:5: warning: unused variable 'x' [-Wunused-variable]"), report.output().strip().lines().toList());

    FarmLauncher.Report remote = FarmLauncher.read("distcc",
        "distcc[7] exec on 10.77.0.12/4: x86_64-linux-gnu-gcc -c k.c -o k.o\ndistcc[7] (dcc_note_state) x\n", true);
    assertEquals("10.77.0.12", remote.host());
    assertEquals("", remote.output());
  }

  @Test
  void verboseIsAddedOnlyForDistccAndNeverToTheJobsOwnEnvironment() {
    Map<String, String> job = Map.of("HIP_PLATFORM", "amd");
    assertEquals("1", FarmLauncher.runEnvironment("distcc", job).get("DISTCC_VERBOSE"));
    assertEquals(job, FarmLauncher.runEnvironment("icecc", job));
    assertNull(job.get("DISTCC_VERBOSE"));
    // A user who asked for distcc's trace gets all of it.
    assertEquals(FELL_BACK, FarmLauncher.read("distcc", FELL_BACK, false).output());
  }
}
