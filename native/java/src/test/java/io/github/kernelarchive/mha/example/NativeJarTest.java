package io.github.kernelarchive.mha.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.JarURLConnection;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** What native/'s jar carries for the bindings: the public header alone, none of the internal ones. */
class NativeJarTest {
  @Test
  void theJarCarriesMhaHAndNoOtherHeader() throws Exception {
    URL url = NativeJarTest.class.getClassLoader().getResource("META-INF/native/mha.platforms");
    assertTrue(url != null && url.getProtocol().equals("jar"), "native/'s jar is not on the class path: " + url);
    JarURLConnection connection = (JarURLConnection) url.openConnection();
    connection.setUseCaches(false);
    try (JarFile jar = connection.getJarFile()) {
      List<String> headers = Collections.list(jar.entries()).stream().map(e -> e.getName())
          .filter(n -> n.startsWith("META-INF/native/include/") && !n.endsWith("/")).sorted().toList();
      assertEquals(List.of("META-INF/native/include/mha.h"), headers, jar.getName());
    }
  }
}
