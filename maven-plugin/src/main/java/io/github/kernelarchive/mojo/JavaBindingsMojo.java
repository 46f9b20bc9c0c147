package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.javabinding.JavaBindingRequest;
import io.github.kernelarchive.javabinding.JavaBindings;
import io.github.kernelarchive.javabinding.KernelJarContents;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Generates a Java 22+ FFM binding of a kernel library's public header into
 * {@code target/generated-sources/kernel} and adds it to the compile sources: a static method per
 * exported function, layouts and accessors for the structs they pass, constants for enums; it
 * loads the library through kernel-archive-runtime on first use. Runs in the Java module that
 * depends on the kernel module's jar, whose headers and exports it reads (docs/java.md).
 */
@Mojo(name = "java-bindings", defaultPhase = LifecyclePhase.GENERATE_SOURCES,
    requiresDependencyResolution = ResolutionScope.COMPILE, threadSafe = true)
public class JavaBindingsMojo extends KernelMojo {
  private static final Pattern PACKAGE = Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*");

  /** What to generate: {@code <package>}, {@code <header>}, optionally {@code <className>} and {@code <library>}. */
  @Parameter
  private JavaConfig java;

  /** castxml, the C front end that reads the header (Debian: castxml). */
  @Parameter(property = "kernel.castxml", defaultValue = "castxml")
  private String castxml;

  /** Where the generated class goes; added to the compile sources. */
  @Parameter(defaultValue = "${project.build.directory}/generated-sources/kernel", required = true)
  private File sourceDirectory;

  /** The kernel jar's headers, unpacked, and castxml's output. */
  @Parameter(defaultValue = "${project.build.directory}/kernel-bindings", required = true)
  private File workDirectory;

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    if (java == null) {
      getLog().debug("No <java> configured: no binding generated.");
      return;
    }
    if (java.packageName() == null || !PACKAGE.matcher(java.packageName()).matches()) {
      throw new MojoFailureException("<java><package> is '" + java.packageName() + "': give the Java package of the"
          + " generated class, e.g. com.example.kernels.");
    }
    if (java.header == null || java.header.isBlank()) {
      throw new MojoFailureException("<java><header> is missing: name the public header to bind, e.g. mha.h.");
    }
    List<File> jars = new ArrayList<>();
    for (Artifact artifact : project.getArtifacts()) {
      getLog().debug("java-bindings: dependency " + artifact + " is " + artifact.getFile());
      // A folder: a module of this reactor before its package phase, which Maven hands over as its
      // target/classes (the kernel packaging lays the jar's content out there in phase compile).
      if (artifact.getFile() != null && (artifact.getFile().getName().endsWith(".jar") || artifact.getFile().isDirectory())) {
        jars.add(artifact.getFile());
      }
    }
    try {
      KernelJarContents contents = KernelJarContents.find(jars.stream().map(File::toPath).toList(), java.library,
          platform(), workDirectory.toPath().resolve("include"));
      String className = java.className != null ? java.className : KernelJarContents.className(contents.library());
      Toolchain toolchain = new Toolchain(ToolchainConfig.defaults(), System.getenv());
      Tool cc = toolchain.compiler(Language.C).orElseThrow(() -> new ToolchainException("castxml imitates the C compiler,"
          + " and none was found: install gcc."));
      JavaBindings.Result result = new JavaBindings(castxml, cc, new ProcessRunner(Map.of())).generate(
          new JavaBindingRequest(contents.include().resolve(java.header), contents.include(), java.packageName(),
              className, contents.library(), contents.exports(), sourceDirectory.toPath(), workDirectory.toPath()));
      getLog().info("Java bindings: " + java.packageName() + "." + className + " from " + java.header + " of "
          + (Files.isDirectory(contents.jar()) ? contents.jar() : contents.jar().getFileName()) + ": " + result.functions() + " functions, " + result.structs() + " structs, "
          + result.constants() + " constants" + (result.written() ? "" : " (unchanged)"));
      result.warnings().forEach(getLog()::warn);
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (ToolchainException e) {
      throw new MojoExecutionException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Generating the Java bindings failed: " + e.getMessage(), e);
    }
    project.addCompileSourceRoot(sourceDirectory.getPath());
  }
}
