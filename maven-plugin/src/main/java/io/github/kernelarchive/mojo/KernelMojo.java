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
   * Tools for single platforms, overriding the ones found or configured for all:
   * {@code <toolchain><platform>linux-aarch64</platform><cxx>/opt/arm/bin/aarch64-none-linux-gnu-g++</cxx></toolchain>}
   * with {@code <cc>}, {@code <cxx>}, {@code <nvcc>}, {@code <ar>}, {@code <linker>}, {@code <launcher>}
   * and {@code <sysroot>} (where qemu finds the platform's C library for its tests). For another
   * platform than the build machine's, {@code <cc>} and {@code <cxx>} replace the compilers found by
   * its triple; the global {@code <cc>} and {@code <cxx>} are the build machine's alone.
   */
  @Parameter
  private List<PlatformToolchain> toolchains = new ArrayList<>();

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
      PlatformToolchain tools = toolchainOf(platform);
      if (tools != null && tools.sysroot != null && !tools.sysroot.isBlank()) {
        platform = platform.withSysroot(new File(tools.sysroot).toPath());
      }
      String compiler = tools != null && tools.cxx != null && !tools.cxx.isBlank() ? tools.cxx : platform.tool("g++");
      if (optional && platform.cross() && !installed(compiler)) {
        if (reportsSkippedPlatforms()) {
          getLog().warn("Platform " + name + " skipped: its cross compiler " + compiler + " is not installed"
              + (compiler.equals(platform.tool("g++")) ? " (apt-get install " + platform.compilerPackage() + ")" : ""));
        }
        continue;
      }
      TargetPlatform chosen = platform;
      if (outputs.stream().anyMatch(o -> o.platform().classifier().equals(chosen.classifier()))) {
        throw new MojoFailureException("kernel.platforms names " + name + " twice: '" + platforms + "'.");
      }
      boolean first = outputs.isEmpty();
      outputs.add(new PlatformOutput(platform, first ? platform(platform) : platform.classifier(),
          first ? outputDirectory : new File(outputDirectory.getPath() + "-" + platform.classifier())));
    }
    return outputs;
  }

  /**
   * The {@code <toolchain>} of {@code platform}, or null. Every entry must name a platform this
   * plugin builds for, since a misspelt one would leave the tools it names silently unused; one for
   * a platform this run does not build ({@code -Dkernel.platforms=linux-x86_64}) is passed over.
   */
  protected PlatformToolchain toolchainOf(TargetPlatform platform) throws MojoFailureException {
    PlatformToolchain found = null;
    for (PlatformToolchain entry : toolchains) {
      String name = entry.platform == null ? "" : entry.platform.trim();
      try {
        TargetPlatform.named(name);
      } catch (BuildFailureException e) {
        throw new MojoFailureException("<toolchains><toolchain><platform>" + name + "</platform>: "
            + e.getMessage().replace("kernel.platforms names", "it names"));
      }
      if (name.equals(platform.classifier())) {
        if (found != null) {
          throw new MojoFailureException("<toolchains> has two <toolchain> entries for " + platform + ": merge them.");
        }
        found = entry;
      }
    }
    return found;
  }

  /** Whether this goal says that an optional platform was skipped: the build goal does, once; the others follow it. */
  protected boolean reportsSkippedPlatforms() {
    return false;
  }

  /** A compiler by name on PATH, or by path. */
  private static boolean installed(String compiler) {
    return compiler.contains("/") ? new File(compiler).canExecute() : onPath(compiler);
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
