package io.github.kernelarchive.wheel;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The two text files of {@code .dist-info} the plugin writes: {@code METADATA} (core metadata 2.1) and {@code WHEEL}. */
final class WheelMetadata {
  private WheelMetadata() {}

  static String metadata(WheelRequest request, List<WheelDependency> dependencies, Map<String, List<String>> extras) {
    WheelRequest.Metadata m = request.metadata();
    StringBuilder text = new StringBuilder();
    text.append("Metadata-Version: 2.1\n");
    text.append("Name: ").append(request.name()).append('\n');
    text.append("Version: ").append(request.version()).append('\n');
    field(text, "Summary", m.summary() == null ? null : m.summary().strip().replaceAll("\\s+", " "));
    field(text, "License", m.license());
    m.projectUrls().forEach(url -> field(text, "Project-URL", url));
    field(text, "Requires-Python", m.requiresPython());
    m.requires().forEach(r -> field(text, "Requires-Dist", r));
    dependencies.forEach(d -> field(text, "Requires-Dist", d.requiresDist()));
    new TreeMap<>(extras).forEach((extra, requirements) -> {
      field(text, "Provides-Extra", extra);
      requirements.forEach(r -> field(text, "Requires-Dist", r + "; extra == \"" + extra + "\""));
    });
    return text.toString();
  }

  static String wheel(String generator, String python, String abi, List<String> platforms) {
    StringBuilder text = new StringBuilder();
    text.append("Wheel-Version: 1.0\n");
    text.append("Generator: ").append(generator).append('\n');
    text.append("Root-Is-Purelib: false\n");
    platforms.forEach(p -> text.append("Tag: ").append(python).append('-').append(abi).append('-').append(p).append('\n'));
    return text.toString();
  }

  private static void field(StringBuilder text, String name, String value) {
    if (value != null && !value.isBlank()) {
      text.append(name).append(": ").append(value.strip()).append('\n');
    }
  }

}
