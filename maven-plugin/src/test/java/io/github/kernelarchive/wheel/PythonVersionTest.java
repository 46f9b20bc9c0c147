package io.github.kernelarchive.wheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PythonVersionTest {
  @Test
  void mapsMavenVersionsToPep440() throws Exception {
    Map<String, String> cases = Map.of("1.2.0", "1.2.0", "1.2.0-SNAPSHOT", "1.2.0.dev0", "1.0-rc1", "1.0rc1",
        "1.0-RC2-SNAPSHOT", "1.0rc2.dev0", "2.0-alpha-3", "2.0a3", "2.0.beta", "2.0b0", "3.1-7", "3.1.post7",
        "1.0-cr1", "1.0rc1");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      assertEquals(c.getValue(), PythonVersion.of(c.getKey(), "project.version"), c.getKey());
    }
  }

  @Test
  void aVersionPep440CannotExpressFailsNamingItAndTheFix() {
    for (String version : new String[] {"1.0-M1", "1.0.Final", "2.0-jdk17", "latest"}) {
      BuildFailureException e = assertThrows(BuildFailureException.class, () -> PythonVersion.of(version, "project.version"));
      assertTrue(e.getMessage().contains("'" + version + "' (project.version) has no PEP 440 form"), e.getMessage());
      assertTrue(e.getMessage().contains("<wheel><version>"), e.getMessage());
    }
    assertThrows(BuildFailureException.class, () -> PythonVersion.checked("1.0-rc1"));
  }

  @Test
  void normalizesDistributionNames() throws Exception {
    assertEquals("kernel-archive-mha", DistributionName.normalize("Kernel_Archive..MHA"));
    assertEquals("kernel_archive_mha", DistributionName.fileComponent("Kernel_Archive..MHA"));
    assertThrows(BuildFailureException.class, () -> DistributionName.normalize("-mha"));
  }
}
