package io.github.kernelarchive.mojo;

import io.github.kernelarchive.bundle.BundlePackager;
import io.github.kernelarchive.common.BuildFailureException;
import java.io.File;
import java.io.IOException;
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
    String platform = platform();
    Path target = Path.of(project.getBuild().getDirectory());
    String name = project.getBuild().getFinalName();
    Path platformBundle = target.resolve(name + "-" + platform + ".kernel");
    boolean kernelPackaging = "kernel".equals(project.getPackaging());
    Path main = kernelPackaging ? target.resolve(name + ".kernel") : null;
    try {
      BundlePackager.pack(project.getBasedir().toPath(), outputDirectory.toPath(), headers.toPath(), platformBundle, main,
          entryTime());
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Writing the kernel bundle failed: " + e.getMessage(), e);
    }
    projectHelper.attachArtifact(project, "kernel", platform, platformBundle.toFile());
    if (kernelPackaging) {
      project.getArtifact().setFile(main.toFile());
    }
    getLog().info("Bundle: " + platformBundle.getFileName() + (main == null ? "" : " and " + main.getFileName()));
  }
}
