package io.github.kernelarchive.mojo;

import io.github.kernelarchive.bundle.BundleException;
import io.github.kernelarchive.bundle.BundleMetadata;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.nativejar.NativeJarBuilder;
import io.github.kernelarchive.nativejar.NativeJarMerger;
import io.github.kernelarchive.nativejar.NativeJarRequest;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Packs the library the build goal linked into a jar for Java consumers,
 * {@code target/<finalName>-<platform>.jar} at {@code META-INF/native/<platform>/}, with the files
 * it needs and their index (docs/java.md), and attaches it with the platform classifier: a Java
 * module depends on it like on any jar and loads it with kernel-archive-runtime's
 * {@code KernelLibrary.load}. Bound at {@code package} in the {@code kernel} packaging; an
 * execution of it does the same in the {@code pom} and {@code jar} packagings.
 */
@Mojo(name = "jar", defaultPhase = LifecyclePhase.PACKAGE, threadSafe = true)
public class JarMojo extends PackagingMojo {
  /** Library name: {@code mha} for {@code libmha.so}. */
  @Parameter(property = "kernel.library", defaultValue = "${project.artifactId}")
  private String library;

  /** Public headers, carried in the jar for the Java bindings generator (goal {@code java-bindings}). */
  @Parameter(property = "kernel.headers", defaultValue = "${project.basedir}/src/main/include")
  private File headers;

  /** Skips the jar alone. */
  @Parameter(property = "kernel.jar.skip", defaultValue = "false")
  private boolean skipJar;

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    if (skipJar) {
      getLog().info("Kernel jar: skipped (kernel.jar.skip=true)");
      return;
    }
    if (!Files.isDirectory(headers.toPath())) {
      getLog().warn("Kernel jar: no public headers, " + headers + " does not exist, so a Java module's goal"
          + " java-bindings has nothing to bind. Put the public headers there, or point kernel.headers at them.");
    }
    List<PlatformOutput> outputs = platformOutputs();
    List<Path> jars = new ArrayList<>();
    for (PlatformOutput output : outputs) {
      jars.add(jar(output));
    }
    if (outputs.size() > 1) {
      // One build made several platforms: the jar a Java module depends on once, holding them all.
      Path merged = Path.of(project.getBuild().getDirectory(), project.getBuild().getFinalName() + "-multiplatform.jar");
      try {
        NativeJarMerger.Result result = NativeJarMerger.merge(jars, library, merged, entryTime(), createdBy());
        getLog().info("Kernel jar: " + merged.getFileName() + " (" + String.join(", ", result.platforms()) + ")");
      } catch (BuildFailureException e) {
        throw new MojoFailureException(e.getMessage(), e);
      } catch (IOException e) {
        throw new MojoExecutionException("Writing the multiplatform jar failed: " + e.getMessage(), e);
      }
      projectHelper.attachArtifact(project, "jar", "multiplatform", merged.toFile());
    }
  }

  private Path jar(PlatformOutput output) throws MojoExecutionException, MojoFailureException {
    String platform = output.classifier();
    Path jar = Path.of(project.getBuild().getDirectory(), project.getBuild().getFinalName() + "-" + platform + ".jar");
    NativeJarBuilder.Result result;
    try {
      result = NativeJarBuilder.build(request(output, jar));
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Writing the kernel jar failed: " + e.getMessage(), e);
    }
    getLog().info("Kernel jar: " + jar.getFileName() + " (META-INF/native/" + platform + "/: "
        + String.join(", ", result.loadOrder()) + (result.glibc().isEmpty() ? "" : "; glibc " + result.glibc()) + ")");
    projectHelper.attachArtifact(project, "jar", platform, jar.toFile());
    return jar;
  }

  /** What goes into the jar of {@code output}'s platform, written to {@code jar}. */
  protected NativeJarRequest request(PlatformOutput output, Path jar) throws MojoFailureException {
    Path kernelOutput = output.outputDirectory().toPath();
    Path file = kernelOutput.resolve("lib" + library + ".so");
    if (!Files.isRegularFile(file)) {
      throw new MojoFailureException("No " + file + " to put into the jar: run the build goal first (mvn package"
          + " does), or set kernel.library to the library's name.");
    }
    Path metadataFile = kernelOutput.resolve(BundleMetadata.FILE);
    BundleMetadata metadata;
    try {
      metadata = BundleMetadata.parse(Files.readAllBytes(metadataFile), metadataFile.toString());
    } catch (BundleException | IOException e) {
      throw new MojoFailureException(metadataFile + " cannot be read (" + e.getMessage() + "): run the build goal again.",
          e);
    }
    return new NativeJarRequest(project.getBasedir().toPath(), file, library, output.classifier(),
        headers.toPath(), metadata.exports(), metadata.cudaArchs().isEmpty() ? "none" : metadata.cudaRuntime(),
        metadata.glibc(), jar, entryTime(), createdBy());
  }

  /** The library's name. */
  protected String library() {
    return library;
  }

  /** Whether {@code kernel.jar.skip} is set. */
  protected boolean jarSkipped() {
    return skipJar;
  }
}
