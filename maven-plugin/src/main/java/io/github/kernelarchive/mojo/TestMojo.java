package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.nativetest.NativeTests;
import io.github.kernelarchive.nativetest.TestSettings;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Builds the native test programs (every C, C++, CUDA or HIP source directly in
 * {@code src/test/native}, each with its own {@code main}) against the library the build goal made,
 * runs them, and reports like Surefire ({@code target/surefire-reports/TEST-<suite>.xml}). Exit
 * status 0 passes, 77 skips (the reason is the program's last line on standard error), anything
 * else, a signal or the timeout fails. Takes the build goal's configuration, so one
 * {@code <configuration>} serves both.
 */
@Mojo(name = "test", defaultPhase = LifecyclePhase.TEST, threadSafe = true,
    requiresDependencyResolution = ResolutionScope.TEST)
public class TestMojo extends BuildMojo {
  /** The test programs; sources in its {@code support/} folder are compiled into every program. */
  @Parameter(property = "kernel.test.sources", defaultValue = "${project.basedir}/src/test/native")
  private File testSources;

  /** Runs only the programs whose name matches this glob ({@code test_fwd}, {@code test_*}). */
  @Parameter(property = "kernel.test")
  private String test;

  /** Programs run at once. Default: the cores. */
  @Parameter(property = "kernel.test.jobs")
  private Integer testJobs;

  /** CUDA and HIP programs run at once: they share the GPU. */
  @Parameter(property = "kernel.test.gpuJobs", defaultValue = "1")
  private int testGpuJobs;

  /** Seconds each program may run before its process group is killed and it fails. */
  @Parameter(property = "kernel.test.timeout", defaultValue = "300")
  private int testTimeout;

  /** Link the programs against the library's archives, so they may call what it keeps private. */
  @Parameter(property = "kernel.test.whiteBox", defaultValue = "false")
  private boolean testWhiteBox;

  /**
   * Sanitizers ({@code address}, {@code undefined}, {@code leak}, comma-separated): the library's
   * CPU code and the programs are built with them in {@code <outputDirectory>-sanitize}.
   */
  @Parameter(property = "kernel.test.sanitize")
  private String testSanitize;

  /** compute-sanitizer tool for CUDA programs ({@code memcheck}, ...), where installed and a GPU is visible. */
  @Parameter(property = "kernel.test.computeSanitizer")
  private String testComputeSanitizer;

  /** Added to every test program's environment. */
  @Parameter
  private Map<String, String> testEnvironment = new HashMap<>();

  /** Added to every test program's link ({@code -lm}). */
  @Parameter
  private List<String> testLinkFlags = new ArrayList<>();

  /** Builds the programs but runs none. */
  @Parameter(property = "skipTests", defaultValue = "false")
  private boolean skipTests;

  /** Neither builds nor runs the programs. */
  @Parameter(property = "maven.test.skip", defaultValue = "false")
  private boolean mavenTestSkip;

  /** Failing programs are reported but do not fail the build. */
  @Parameter(property = "maven.test.failure.ignore", defaultValue = "false")
  private boolean testFailureIgnore;

  /** Where the Surefire XML report goes, beside Surefire's own. */
  @Parameter(defaultValue = "${project.build.directory}/surefire-reports")
  private File reportsDirectory;


  @Override
  protected boolean reportsSkippedPlatforms() {
    return false;
  }

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    if (mavenTestSkip) {
      getLog().info("Native tests are skipped (maven.test.skip=true)");
      return;
    }
    for (PlatformOutput output : platformOutputs()) {
      test(output);
    }
  }

  private void test(PlatformOutput output) throws MojoExecutionException, MojoFailureException {
    NativeTests.Summary summary;
    try {
      summary = new NativeTests(new MavenBuildLog(getLog()), System.getenv()).run(request(output), settings(output));
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (ToolchainException e) {
      throw new MojoExecutionException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Native test I/O failure: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MojoExecutionException("Native tests interrupted", e);
    }
    TestFailures.report(summary.problems(), "native", summary.report() + " and each program's output in its run folder",
        testFailureIgnore, getLog());
  }

  /** The test parameters as the engine's settings; a value out of range names its parameter. */
  TestSettings settings(PlatformOutput output) throws MojoFailureException {
    if (testJobs != null && testJobs < 1) {
      throw new MojoFailureException("kernel.test.jobs must be at least 1, was " + testJobs + ".");
    }
    if (testGpuJobs < 1) {
      throw new MojoFailureException("kernel.test.gpuJobs must be at least 1, was " + testGpuJobs + ".");
    }
    if (testTimeout < 1) {
      throw new MojoFailureException("kernel.test.timeout must be at least 1 (seconds), was " + testTimeout + ".");
    }
    List<String> sanitizers = new ArrayList<>();
    if (testSanitize != null && !testSanitize.isBlank()) {
      for (String name : testSanitize.split(",")) {
        String sanitizer = name.trim();
        if (!TestSettings.KNOWN_SANITIZERS.contains(sanitizer)) {
          throw new MojoFailureException("kernel.test.sanitize names '" + sanitizer + "': use "
              + String.join(", ", TestSettings.KNOWN_SANITIZERS) + " (comma-separated).");
        }
        sanitizers.add(sanitizer);
      }
    }
    String computeSanitizer = testComputeSanitizer == null || testComputeSanitizer.isBlank() ? null
        : testComputeSanitizer.trim();
    if (computeSanitizer != null && !TestSettings.COMPUTE_SANITIZER_TOOLS.contains(computeSanitizer)) {
      throw new MojoFailureException("kernel.test.computeSanitizer is '" + computeSanitizer + "': use "
          + String.join(", ", TestSettings.COMPUTE_SANITIZER_TOOLS) + ".");
    }
    return new TestSettings(testSources.toPath(), test, testJobs != null ? testJobs : 0, testGpuJobs,
        Duration.ofSeconds(testTimeout), testWhiteBox, sanitizers, computeSanitizer, !skipTests,
        reportsDirectory.toPath(), output.outputDirectory().equals(outputDirectory) ? suite()
            : suite() + "-" + output.classifier(), testEnvironment, testLinkFlags, output.platform());
  }

  /**
   * The report's suite: the library's name, and the execution's id when the pom named it (two
   * executions testing two builds write two reports).
   */
  private String suite() {
    String id = mojoExecution == null ? null : mojoExecution.getExecutionId();
    String library = libraryName();
    return id == null || id.equals("default") || id.startsWith("default-") ? library : library + "-" + id;
  }
}
