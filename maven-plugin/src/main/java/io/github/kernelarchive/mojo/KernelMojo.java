package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.toolchain.TargetPlatform;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
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

  /**
   * The platforms to build for, by classifier: {@code linux-x86_64,linux-aarch64}. Default: the build
   * machine's. The first is built into {@code outputDirectory}, each other into
   * {@code <outputDirectory>-<classifier>} (docs/platforms.md). A trailing {@code ?}
   * ({@code linux-aarch64?}) builds that platform where its cross compiler is installed and skips it,
   * with one warning, where not.
   */
  @Parameter(property = "kernel.platforms")
  protected String platforms;

  /** One platform of the build: what it is, its classifier and its output folder. */
  record PlatformOutput(TargetPlatform platform, String classifier, File outputDirectory) {}

  /** {@code kernel.platforms} in order; {@code kernel.classifier} names the first. */
  protected List<PlatformOutput> platformOutputs() throws MojoFailureException {
    List<PlatformOutput> outputs = new ArrayList<>();
    List<String> names = platforms == null || platforms.isBlank() ? List.of(TargetPlatform.host().classifier())
        : List.of(platforms.trim().split("\\s*,\\s*"));
    for (String entry : names) {
      boolean optional = entry.endsWith("?");
      String name = optional ? entry.substring(0, entry.length() - 1) : entry;
      TargetPlatform platform;
      try {
        platform = TargetPlatform.named(name);
      } catch (BuildFailureException e) {
        throw new MojoFailureException(e.getMessage(), e);
      }
      if (optional && platform.cross() && !onPath(platform.tool("g++"))) {
        if (reportsSkippedPlatforms()) {
          getLog().warn("Platform " + name + " skipped: its cross compiler " + platform.tool("g++") + " is not installed"
              + " (apt-get install " + platform.compilerPackage() + ")");
        }
        continue;
      }
      if (outputs.stream().anyMatch(o -> o.platform().equals(platform))) {
        throw new MojoFailureException("kernel.platforms names " + name + " twice: '" + platforms + "'.");
      }
      boolean first = outputs.isEmpty();
      outputs.add(new PlatformOutput(platform, first ? platform(platform) : platform.classifier(),
          first ? outputDirectory : new File(outputDirectory.getPath() + "-" + platform.classifier())));
    }
    return outputs;
  }

  /** Whether this goal says that an optional platform was skipped: the build goal does, once; the others follow it. */
  protected boolean reportsSkippedPlatforms() {
    return false;
  }

  private static boolean onPath(String executable) {
    return List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)).stream()
        .anyMatch(folder -> !folder.isEmpty() && new File(folder, executable).canExecute());
  }

  /** {@code kernel.classifier}, else this machine's platform. */
  protected String platform() {
    return platform(TargetPlatform.host());
  }

  private String platform(TargetPlatform target) {
    return classifier != null && !classifier.isBlank() ? classifier : target.classifier();
  }
}
