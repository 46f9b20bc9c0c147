package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every skip tells the reader on the console what to install: the package names the tests and
 * the ITs' selectors print are the ones dpkg says the tools come from, and every selector prints
 * its reason through the helper that reaches the console (Invoker keeps a script's own output
 * for build.log alone).
 */
class InstalledTest {
  private static final Path IT = Path.of("..", "it");

  @Test
  void thePackageNamedForEachToolIsTheOneThatInstallsIt() throws Exception {
    Installed.assumeOnPath("dpkg", "which package a tool comes from");
    List<String> checked = new ArrayList<>();
    for (Map.Entry<String, String> tool : Installed.PACKAGES.entrySet()) {
      Path found = System.getenv("PATH").lines().flatMap(p -> Stream.of(p.split(":")))
          .map(p -> Path.of(p, tool.getKey())).filter(Files::isExecutable).findFirst().orElse(null);
      if (found == null) {
        continue;
      }
      String owner = owner(found);
      assertEquals(tool.getValue(), owner, tool.getKey() + " (" + found + ")");
      checked.add(tool.getKey());
    }
    System.out.println("Package names checked against dpkg: " + checked);
  }

  /** The package dpkg lists for the file, tried as found and without the /usr that merged-/usr systems add. */
  private static String owner(Path file) throws Exception {
    List<String> candidates = new ArrayList<>(List.of(file.toString(), file.toRealPath().toString()));
    candidates.addAll(candidates.stream().filter(c -> c.startsWith("/usr/")).map(c -> c.substring(4)).toList());
    for (String candidate : candidates) {
      Process dpkg = new ProcessBuilder("dpkg", "-S", candidate).redirectErrorStream(true).start();
      String output = new String(dpkg.getInputStream().readAllBytes()).strip();
      if (dpkg.waitFor() == 0) {
        return output.substring(0, output.indexOf(':'));
      }
    }
    return "(no package lists " + candidates + ")";
  }

  @Test
  void everySelectorSaysOnTheConsoleWhyItSkipsAndWhatToInstall() throws Exception {
    List<Path> selectors;
    try (Stream<Path> found = Files.list(IT)) {
      selectors = found.map(p -> p.resolve("selector.groovy")).filter(Files::isRegularFile).sorted().toList();
    }
    assertFalse(selectors.isEmpty(), "no selectors under " + IT.toAbsolutePath());
    Pattern tool = Pattern.compile("requireTool\\('([^']+)', '([^']+)', '([^']+)'\\)");
    Pattern install = Pattern.compile("apt-get install ([\\w.+-]+)");
    for (Path selector : selectors) {
      String script = Files.readString(selector);
      String name = selector.getParent().getFileName().toString();
      assertTrue(script.matches("(?s).*return check\\.(requireTool|requireNvcc|runsWhen)\\('?.*"),
          selector + " must decide through check.requireTool, requireNvcc or runsWhen, which print to the console");
      assertTrue(script.contains("'" + name + "'"), selector + " names its IT, " + name);
      for (Matcher m = tool.matcher(script); m.find(); ) {
        assertEquals(Installed.PACKAGES.get(m.group(2)), m.group(3), selector + ": the package of " + m.group(2));
      }
      for (Matcher m = install.matcher(script); m.find(); ) {
        assertTrue(Installed.PACKAGES.containsValue(m.group(1)) || Installed.PYTHON_PACKAGES.contains(m.group(1)),
            selector + ": " + m.group(1) + " is no known package");
      }
    }
  }
}
