package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.pythontest.PythonTests;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Runs the Python tests ({@code src/test/python/test_*.py}) against the wheel the wheel goal
 * attached, installed offline into a fresh virtualenv under {@code target/python-test}; reports in
 * {@code target/surefire-reports/TEST-python.xml}. Bound at {@code integration-test} in the
 * {@code kernel} packaging (the wheel exists from {@code package} on), so {@code mvn verify} runs them.
 */
@Mojo(name = "python-test", defaultPhase = LifecyclePhase.INTEGRATION_TEST, threadSafe = true)
public class PythonTestMojo extends KernelMojo {
  /** The wheel ({@code <findLinks>}: folders of the wheels its dependencies come from); nothing runs without it. */
  @Parameter
  private WheelConfig wheel;

  /** The Python that makes the test venv. */
  @Parameter(property = "kernel.python", defaultValue = "python3")
  private String python;

  /** The Python test files ({@code test_*.py}). */
  @Parameter(property = "kernel.test.python.sources", defaultValue = "${project.basedir}/src/test/python")
  private File testPythonSources;

  /** Runs only the test files whose name matches this glob ({@code test_api}, {@code test_*}). */
  @Parameter(property = "kernel.test")
  private String test;

  /** Seconds each test file may run. */
  @Parameter(property = "kernel.test.timeout", defaultValue = "300")
  private int testTimeout;

  /** Runs no Python test. */
  @Parameter(property = "skipTests", defaultValue = "false")
  private boolean skipTests;

  /** Runs no Python test. */
  @Parameter(property = "maven.test.skip", defaultValue = "false")
  private boolean mavenTestSkip;

  /** Failing tests are reported but do not fail the build. */
  @Parameter(property = "maven.test.failure.ignore", defaultValue = "false")
  private boolean testFailureIgnore;

  /** Where {@code TEST-python.xml} goes. */
  @Parameter(defaultValue = "${project.build.directory}/surefire-reports")
  private File reportsDirectory;

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    if (wheel == null || !Files.isDirectory(testPythonSources.toPath())) {
      return;
    }
    if (skipTests || mavenTestSkip) {
      getLog().info("Python tests are skipped");
      return;
    }
    if (testTimeout < 1) {
      throw new MojoFailureException("kernel.test.timeout must be at least 1 (seconds), was " + testTimeout + ".");
    }
    Path wheelFile = project.getAttachedArtifacts().stream().filter(a -> "whl".equals(a.getType()))
        .map(Artifact::getFile).filter(f -> f != null).map(File::toPath).findFirst()
        .orElseThrow(() -> new MojoFailureException("No wheel to test: " + testPythonSources + " holds Python tests,"
            + " but no wheel was attached in this build. Run the wheel goal first (mvn verify with the kernel"
            + " packaging, or an execution with the goals wheel and python-test)."));
    PythonTests.Summary summary;
    try {
      summary = new PythonTests(new MavenBuildLog(getLog())).run(new PythonTests.Request(wheelFile,
          testPythonSources.toPath(), Path.of(project.getBuild().getDirectory(), "python-test"),
          reportsDirectory.toPath(), python, wheel.findLinks.stream().map(File::toPath).toList(), test,
          Duration.ofSeconds(testTimeout)));
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (ToolchainException e) {
      throw new MojoExecutionException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Python test I/O failure: " + e.getMessage(), e);
    }
    TestFailures.report(summary.problems(), "Python", summary.report() + " and each file's output in target/python-test",
        testFailureIgnore, getLog());
  }
}
