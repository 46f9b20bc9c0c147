package io.github.kernelarchive.mojo;

import io.github.kernelarchive.util.Platform;
import java.io.File;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.apache.maven.project.MavenProjectHelper;

/** What every goal of the plugin takes: the project, where the build's outputs are, the platform, the skip switch. */
abstract class KernelMojo extends AbstractMojo {
  @Parameter(defaultValue = "${project}", readonly = true, required = true)
  protected MavenProject project;

  @Component
  protected MavenProjectHelper projectHelper;

  /**
   * Platform classifier of the attached library and kernel bundle, and of the bundles
   * {@code <type>kernel</type>} dependencies resolve. Default: {@code <os>-<arch>}, e.g. {@code linux-x86_64}.
   */
  @Parameter(property = "kernel.classifier")
  protected String classifier;

  /** Objects, state, archives and the library. */
  @Parameter(defaultValue = "${project.build.directory}/kernel", required = true)
  protected File outputDirectory;

  /** Skips the goal. */
  @Parameter(property = "kernel.skip", defaultValue = "false")
  private boolean skip;

  @Override
  public final void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("Kernel Archive: skipped (kernel.skip=true)");
      return;
    }
    run();
  }

  /** The goal itself, unless skipped. */
  protected abstract void run() throws MojoExecutionException, MojoFailureException;

  /** {@code kernel.classifier}, else this machine's platform. */
  protected String platform() {
    return classifier != null && !classifier.isBlank() ? classifier : Platform.classifier();
  }
}
