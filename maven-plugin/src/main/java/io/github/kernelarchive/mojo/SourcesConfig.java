package io.github.kernelarchive.mojo;

import io.github.kernelarchive.scan.SourceSet;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.MojoFailureException;

/** {@code <sources>}: a directory with optional Ant-style includes and excludes (bound by Maven). */
public class SourcesConfig {
  File directory;
  List<String> includes = new ArrayList<>();
  List<String> excludes = new ArrayList<>();

  /** @param element how the pom names this element, for the error when it has no directory */
  SourceSet toSourceSet(String unit, String element) throws MojoFailureException {
    if (directory == null) {
      throw new MojoFailureException(element + " needs a <directory>.");
    }
    return new SourceSet(unit, directory.toPath().toAbsolutePath(), includes, excludes);
  }
}
