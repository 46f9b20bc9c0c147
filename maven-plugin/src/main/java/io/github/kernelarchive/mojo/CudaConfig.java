package io.github.kernelarchive.mojo;

import java.util.ArrayList;
import java.util.List;

/** {@code <cuda>}: targets and nvcc options (bound by Maven). */
public class CudaConfig {
  String archs;
  boolean relocatableDeviceCode;
  String nvcc;
  List<String> flags = new ArrayList<>();
}
