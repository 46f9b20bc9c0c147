package io.github.kernelarchive.mojo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.nativetest.TestSettings;
import java.io.File;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.maven.plugin.MojoExecution;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.descriptor.MojoDescriptor;
import org.junit.jupiter.api.Test;

/** The test goal's parameters as Maven injects them, mapped to the engine's settings, and the errors for bad values. */
class TestSettingsMappingTest {
  private static void set(Object mojo, Class<?> owner, String field, Object value) throws Exception {
    Field f = owner.getDeclaredField(field);
    f.setAccessible(true);
    f.set(mojo, value);
  }

  private static TestSettings settingsOf(TestMojo mojo) throws Exception {
    return mojo.settings(mojo.platformOutputs().get(0));
  }

  /** A test goal as Maven sets it up with the defaults its annotations declare. */
  private static TestMojo mojo(String executionId) throws Exception {
    TestMojo mojo = new TestMojo();
    set(mojo, BuildMojo.class, "library", "mha");
    set(mojo, TestMojo.class, "testSources", new File("/p/src/test/native"));
    set(mojo, TestMojo.class, "testGpuJobs", 1);
    set(mojo, TestMojo.class, "testTimeout", 300);
    set(mojo, TestMojo.class, "reportsDirectory", new File("/p/target/surefire-reports"));
    set(mojo, KernelMojo.class, "outputDirectory", new File("/p/target/kernel"));
    set(mojo, BuildMojo.class, "mojoExecution", new MojoExecution(new MojoDescriptor(), executionId));
    return mojo;
  }

  @Test
  void defaultsAreSurefiresAndTheCores() throws Exception {
    TestSettings settings = settingsOf(mojo("default-test"));
    assertEquals(new File("/p/src/test/native").toPath(), settings.sources());
    assertNull(settings.filter());
    assertEquals(0, settings.jobs(), "0: the engine takes the cores");
    assertEquals(1, settings.gpuJobs());
    assertEquals(Duration.ofSeconds(300), settings.timeout());
    assertFalse(settings.whiteBox());
    assertEquals(List.of(), settings.sanitizers());
    assertNull(settings.computeSanitizer());
    assertTrue(settings.run());
    assertEquals("mha", settings.suite());
    assertEquals(Map.of(), settings.environment());
  }

  @Test
  void anExecutionThePomNamedGetsASuiteOfItsOwn() throws Exception {
    assertEquals("mha", settingsOf(mojo("default")).suite());
    assertEquals("mha-cpu-only", settingsOf(mojo("cpu-only")).suite());
  }

  @Test
  void valuesAsUsersWriteThem() throws Exception {
    TestMojo mojo = mojo("default-test");
    set(mojo, TestMojo.class, "testSanitize", " address, undefined ");
    set(mojo, TestMojo.class, "testComputeSanitizer", "memcheck");
    set(mojo, TestMojo.class, "skipTests", true);
    set(mojo, TestMojo.class, "testJobs", 6);
    set(mojo, TestMojo.class, "test", "test_*");
    TestSettings settings = settingsOf(mojo);
    assertEquals(List.of("address", "undefined"), settings.sanitizers());
    assertEquals("memcheck", settings.computeSanitizer());
    assertFalse(settings.run());
    assertEquals(6, settings.jobs());
    assertEquals("test_*", settings.filter());
  }

  @Test
  void aBadValueNamesItsParameterAndTheValuesItTakes() throws Exception {
    assertEquals("kernel.test.sanitize names 'memory': use address, undefined, leak (comma-separated).",
        refused("testSanitize", "address,memory"));
    assertEquals("kernel.test.computeSanitizer is 'memchek': use memcheck, racecheck, initcheck, synccheck.",
        refused("testComputeSanitizer", "memchek"));
    assertEquals("kernel.test.timeout must be at least 1 (seconds), was 0.", refused("testTimeout", 0));
    assertEquals("kernel.test.jobs must be at least 1, was 0.", refused("testJobs", 0));
  }

  /** The message of the failure that setting {@code field} of the test goal to {@code value} gives. */
  private static String refused(String field, Object value) throws Exception {
    TestMojo mojo = mojo("default-test");
    set(mojo, TestMojo.class, field, value);
    return assertThrows(MojoFailureException.class, () -> settingsOf(mojo)).getMessage();
  }
}
