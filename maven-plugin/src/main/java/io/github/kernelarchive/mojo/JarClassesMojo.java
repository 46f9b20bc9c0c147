package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.nativejar.NativeJarBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;

/**
 * Lays the kernel jar's content out in {@code target/classes}: {@code META-INF/native/<platform>/}
 * with the library and its index, and the headers. Until goal {@code jar} has packed the jar (phase
 * {@code package}), Maven hands that folder to a module of the same reactor that depends on the
 * jar, so {@code mvn compile}, {@code mvn test} and {@code mvn verify} there generate bindings from
 * this module's headers and load the library this build linked. Bound at {@code compile}, after
 * goal {@code build}, in the {@code kernel} packaging (so that {@code mvn compile} is enough); an
 * execution of its own runs at {@code process-classes}.
 */
@Mojo(name = "jar-classes", defaultPhase = LifecyclePhase.PROCESS_CLASSES, threadSafe = true)
public class JarClassesMojo extends JarMojo {
  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    if (jarSkipped()) {
      getLog().info("Kernel jar content: skipped (kernel.jar.skip=true)");
      return;
    }
    Path classes = Path.of(project.getBuild().getOutputDirectory());
    for (PlatformOutput output : platformOutputs()) {
      // The jar goal's own file name: nothing is written there, but the request names it.
      Path jar = Path.of(project.getBuild().getDirectory(), project.getBuild().getFinalName() + "-"
          + output.classifier() + ".jar");
      try {
        if (!Files.isRegularFile(output.outputDirectory().toPath().resolve("lib" + library() + ".so"))) {
          getLog().info("Kernel jar content: no lib" + library() + ".so in " + output.outputDirectory()
              + " (the build goal did not link one), nothing laid out for " + output.classifier());
          continue;
        }
        NativeJarBuilder.Result result = NativeJarBuilder.layOut(request(output, jar), classes);
        getLog().info("Kernel jar content: " + project.getBasedir().toPath()
            .relativize(classes) + "/META-INF/native/" + output.classifier() + "/ (" + String.join(", ",
            result.loadOrder()) + ") for modules of this reactor");
      } catch (BuildFailureException e) {
        throw new MojoFailureException(e.getMessage(), e);
      } catch (IOException e) {
        throw new MojoExecutionException("Laying the kernel jar's content out in " + classes + " failed: "
            + e.getMessage(), e);
      }
    }
  }
}
