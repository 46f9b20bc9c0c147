package com.example;

import io.github.kernelarchive.runtime.KernelLibrary;

/** y = a * x + y, in C through JNI; the library comes from the kernel module's jar. */
public final class Saxpy {
  static {
    // System::load from this class: JNI binds native methods through the class's own loader.
    KernelLibrary.load("saxpy", System::load);
  }

  private Saxpy() {}

  public static native void saxpy(float a, float[] x, float[] y);

  /** How many times the JVM called JNI_OnLoad of the library. */
  public static native int loads();
}
