package io.github.kernelarchive.mojo;

import io.github.kernelarchive.bundle.BundleException;
import io.github.kernelarchive.bundle.BundleMetadata;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.wheel.DeclaredDependency;
import io.github.kernelarchive.wheel.PlatformTag;
import io.github.kernelarchive.wheel.PythonVersion;
import io.github.kernelarchive.wheel.WheelBuilder;
import io.github.kernelarchive.wheel.WheelDependency;
import io.github.kernelarchive.wheel.WheelRequest;
import io.github.kernelarchive.wheelfile.WheelWriter;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Writes the library the build goal linked into a Python wheel,
 * {@code target/<name>-<version>-<tags>.whl}, tagged from its content (manylinux policy), with the
 * wheels it needs as {@code Requires-Dist}, and attaches it (extension {@code whl}, the tags as
 * classifier). Bound at {@code package} in the {@code kernel} packaging; does nothing without
 * {@code <wheel>}.
 */
@Mojo(name = "wheel", defaultPhase = LifecyclePhase.PACKAGE, threadSafe = true)
public class WheelMojo extends PackagingMojo {
  /** The wheel: name, package, extension module, metadata, dependencies on other wheels. */
  @Parameter
  private WheelConfig wheel;

  /** Library name: {@code mha} for {@code libmha.so}. */
  @Parameter(property = "kernel.library", defaultValue = "${project.artifactId}")
  private String library;

  /** The Python an extension module is built for ({@code <wheel><module>}). */
  @Parameter(property = "kernel.python", defaultValue = "python3")
  private String python;

  /** Public headers, put into the wheel with {@code <wheel><headers>true}. */
  @Parameter(property = "kernel.headers", defaultValue = "${project.basedir}/src/main/include")
  private File headers;

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    if (wheel == null) {
      getLog().debug("No <wheel> configured: no wheel written.");
      return;
    }
    for (PlatformOutput output : platformOutputs()) {
      wheel(output);
    }
  }

  private void wheel(PlatformOutput output) throws MojoExecutionException, MojoFailureException {
    WheelBuilder.Result result;
    try {
      result = new WheelBuilder(new ProcessRunner(Map.of())).build(request(output));
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (ToolchainException e) {
      throw new MojoExecutionException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Writing the wheel failed: " + e.getMessage(), e);
    }
    getLog().info("Wheel: " + result.wheel().getFileName()
        + (result.outcome() == WheelWriter.Outcome.UNCHANGED ? " (unchanged)" : ""));
    result.removed().forEach(w -> getLog().info("  removed " + w.getFileName() + ", an earlier build's wheel of this"
        + " version and architecture"));
    PlatformTag.Result platform = result.platform();
    if (platform.highest().isEmpty() && platform.blacklisted().isEmpty() && platform.floor() == null) {
      getLog().info("  tag " + String.join(".", platform.tags()) + ": no symbol version of a system library needed");
    } else {
      getLog().info("  tag " + String.join(".", platform.tags()) + ", set by:");
      if (platform.floor() != null) {
        getLog().info("    kernel.glibc " + platform.floor() + ": the library was checked against that glibc, no older");
      }
      platform.highest().values().forEach(r -> getLog().info("    " + r.describe()));
      platform.blacklisted().forEach(b -> getLog().info("    " + b));
    }
    for (WheelDependency d : result.dependencies()) {
      getLog().info("  requires " + d.requiresDist() + " for " + d.library() + " (RPATH into " + d.folder() + "; "
          + d.foundBy() + ")");
    }
    result.vendored().forEach(v -> getLog().info("  vendored " + v));
    projectHelper.attachArtifact(project, "whl", result.tags(), result.wheel().toFile());
  }

  /** The pom's {@code <wheel>} as the wheel stage's request. */
  WheelRequest request(PlatformOutput output) throws MojoFailureException, ToolchainException {
    String version;
    try {
      version = wheel.version != null ? PythonVersion.checked(wheel.version)
          : PythonVersion.of(project.getVersion(), "project.version");
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    }
    Path kernelOutput = output.outputDirectory().toPath();
    BundleMetadata built = metadata(kernelOutput);

    String importPackage = wheel.importPackage() != null ? wheel.importPackage() : library;
    Map<String, List<String>> extras = new LinkedHashMap<>();
    for (WheelConfig.ExtraConfig extra : wheel.extras) {
      if (extra.name == null || extra.name.isBlank()) {
        throw new MojoFailureException("Every <wheel><extras><extra> needs a <name> (e.g. cu13).");
      }
      extras.put(extra.name, List.copyOf(extra.requires));
    }
    WheelRequest.Metadata metadata = new WheelRequest.Metadata(project.getDescription(), wheel.license,
        wheel.projectUrls, wheel.requiresPython, wheel.requires, extras);
    List<DeclaredDependency> dependencies = wheel.dependencies.stream()
        .map(d -> new DeclaredDependency(d.library, d.distribution, d.requirement, d.folder)).toList();
    Path pythonSources = wheel.pythonSources != null ? wheel.pythonSources.toPath()
        : project.getBasedir().toPath().resolve("src/main/python");
    return new WheelRequest(project.getBasedir().toPath(), kernelOutput.resolve("lib" + library + ".so"), Path.of(project.getBuild().getDirectory()),
        kernelOutput.resolve("wheel"), wheel.name != null ? wheel.name : project.getArtifactId(), version,
        importPackage, PythonModule.extension(wheel, python), pythonSources, wheel.headers ? headers.toPath() : null,
        metadata, dependencies, wheel.vendored, built != null && "stub".equals(built.cudaRuntime()), wheel.maxManylinux,
        built == null || built.glibc().isEmpty() ? null : built.glibc(),
        entryTime(),
        createdBy());
  }

  /** What the build goal left beside the library ({@code kernel.properties}); null when it left none. */
  private static BundleMetadata metadata(Path kernelOutput) throws MojoFailureException {
    Path file = kernelOutput.resolve(BundleMetadata.FILE);
    try {
      return Files.isRegularFile(file) ? BundleMetadata.parse(Files.readAllBytes(file), file.toString()) : null;
    } catch (BundleException | IOException e) {
      throw new MojoFailureException(file + " cannot be read (" + e.getMessage() + "): run the build goal again.", e);
    }
  }
}
