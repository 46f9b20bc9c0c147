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
  /** How the library reaches the dependency. */
  enum Linkage {
    /** Linked, and so NEEDED by its SONAME (the default). */
    SHARED,
    /** Not linked: a lazy-loading stub, no NEEDED. */
    STUB
  }

  /** {@code shared} or {@code stub} ({@link Linkage}). */
  String linkage = "shared";
  /** With {@code stub}: the SONAMEs tried in order at run time; default the SONAME of the file found. */
  List<String> sonames = new ArrayList<>();
  /** With {@code stub}: what every function returns when no runtime loads (defaults for cudart and nvrtc). */
  Long missingResult;
  /** With {@code stub}: functions whose signature differs between the SONAMEs; calling one fails the build. */
  List<String> incompatible = new ArrayList<>();
}
