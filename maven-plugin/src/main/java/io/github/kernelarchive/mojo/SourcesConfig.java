package io.github.kernelarchive.mojo;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** {@code <sources>}: a directory with optional Ant-style includes and excludes (bound by Maven). */
public class SourcesConfig {
  File directory;
  List<String> includes = new ArrayList<>();
  List<String> excludes = new ArrayList<>();
}
