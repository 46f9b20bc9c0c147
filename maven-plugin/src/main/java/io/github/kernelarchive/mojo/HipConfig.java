package io.github.kernelarchive.mojo;

import java.util.ArrayList;
import java.util.List;

/** {@code <hip>}: AMD targets and hipcc options (bound by Maven). */
public class HipConfig {
  String archs;
  String hipcc;
  List<String> flags = new ArrayList<>();
}
