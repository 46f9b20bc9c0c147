package io.github.kernelarchive.audit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * C++ names as a reader knows them ({@code layernorm_forward(float*, int)} for
 * {@code _Z17layernorm_forwardPfi}), through binutils' {@code c++filt}: the one demangler that
 * follows GCC's ABI to the letter, and installed wherever the linker is. Used on reports only; a
 * name it cannot demangle (a C name, or no c++filt) stays as it is.
 */
public final class Demangler {
  private Demangler() {}

  public static Map<String, String> demangle(Collection<String> names) {
    Map<String, String> readable = new HashMap<>();
    names.forEach(n -> readable.put(n, n));
    List<String> mangled = names.stream().filter(n -> n.startsWith("_Z")).toList();
    if (mangled.isEmpty()) {
      return readable;
    }
    try {
      Process process = new ProcessBuilder("c++filt").redirectErrorStream(true).start();
      try (OutputStream in = process.getOutputStream()) {
        in.write((String.join("\n", mangled) + "\n").getBytes(StandardCharsets.UTF_8));
      }
      List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      if (process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 && lines.size() == mangled.size()) {
        for (int i = 0; i < lines.size(); i++) {
          readable.put(mangled.get(i), lines.get(i));
        }
      }
    } catch (IOException e) {
      // No c++filt: the report keeps the mangled names, which are still exact.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return readable;
  }
}
