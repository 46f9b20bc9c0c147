package io.github.kernelarchive.mojo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code mvn kernel:help -Ddetail} prints each parameter's description from the plugin descriptor,
 * which maven-plugin-plugin makes from the Javadoc before the tests run: every parameter a user can
 * set has one.
 */
class HelpTextTest {
  private static final Path DESCRIPTOR = Path.of("target/classes/META-INF/maven/plugin.xml");

  @Test
  void everyParameterAUserCanSetHasADescription() throws Exception {
    String descriptor = Files.readString(DESCRIPTOR);
    Matcher mojos = Pattern.compile("(?s)<mojo>(.*?)</mojo>").matcher(descriptor);
    List<String> missing = new ArrayList<>();
    int parameters = 0;
    while (mojos.find()) {
      String mojo = mojos.group(1);
      String goal = field(mojo, "goal");
      Matcher each = Pattern.compile("(?s)<parameter>(.*?)</parameter>").matcher(mojo);
      while (each.find()) {
        String parameter = each.group(1);
        if (!"true".equals(field(parameter, "editable"))) {
          continue;
        }
        parameters++;
        String description = field(parameter, "description");
        if (description == null || description.isBlank()) {
          missing.add(goal + ":" + field(parameter, "name"));
        }
      }
    }
    assertTrue(parameters > 50, "read " + parameters + " parameters from " + DESCRIPTOR);
    assertEquals(List.of(), missing, "parameters without Javadoc (kernel:help -Ddetail shows nothing for them)");
  }

  private static String field(String xml, String name) {
    Matcher m = Pattern.compile("(?s)<" + name + ">(.*?)</" + name + ">").matcher(xml);
    return m.find() ? m.group(1) : null;
  }
}
