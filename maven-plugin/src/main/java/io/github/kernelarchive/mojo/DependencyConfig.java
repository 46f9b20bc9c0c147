package io.github.kernelarchive.mojo;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** {@code <dependency>}: a native library to find and build against (bound by Maven). */
public class DependencyConfig {
  String name;
  List<String> libraries = new ArrayList<>();
  List<String> deviceLibraries = new ArrayList<>();
  List<String> headers = new ArrayList<>();
  boolean optional;
  /** Ant patterns, relative to each source directory, of the sources that need it. */
  List<String> sources = new ArrayList<>();
  List<File> includeDirectories = new ArrayList<>();
  List<File> libraryDirectories = new ArrayList<>();
}
