package io.github.kernelarchive.mojo;

import io.github.kernelarchive.bundle.BundlePackager;
import io.github.kernelarchive.common.BuildFailureException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Packs the library the build goal made into a kernel bundle for this platform (attached with the
 * platform classifier, type {@code kernel}) and, with {@code <packaging>kernel</packaging>}, the
 * platform-neutral main artifact (metadata and public headers). Deterministic: the same inputs
 * give the same bytes in any checkout.
 */
@Mojo(name = "bundle", defaultPhase = LifecyclePhase.PACKAGE, threadSafe = true)
public class BundleMojo extends PackagingMojo {
  /** The public headers shipped to consumers (put on their include path). */
  @Parameter(property = "kernel.headers", defaultValue = "${project.basedir}/src/main/include")
  private File headers;

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    Path target = Path.of(project.getBuild().getDirectory());
    String name = project.getBuild().getFinalName();
    boolean kernelPackaging = "kernel".equals(project.getPackaging());
    Path main = kernelPackaging ? target.resolve(name + ".kernel") : null;
    for (PlatformOutput output : platformOutputs()) {
      Path platformBundle = target.resolve(name + "-" + output.classifier() + ".kernel");
      try {
        // The headers and metadata are the same for every platform: the main artifact from the first.
        BundlePackager.pack(project.getBasedir().toPath(), output.outputDirectory().toPath(), headers.toPath(),
            platformBundle, output.outputDirectory().equals(outputDirectory) ? main : null, entryTime());
      } catch (BuildFailureException e) {
        throw new MojoFailureException(e.getMessage(), e);
      } catch (IOException e) {
        throw new MojoExecutionException("Writing the kernel bundle failed: " + e.getMessage(), e);
      }
      projectHelper.attachArtifact(project, "kernel", output.classifier(), platformBundle.toFile());
      getLog().info("Bundle: " + platformBundle.getFileName());
    }
    if (kernelPackaging && Files.isRegularFile(main)) { // none where every platform was optional and skipped
      project.getArtifact().setFile(main.toFile());
      getLog().info("Bundle: " + main.getFileName());
    }
  }
}
