package io.github.kernelarchive.glibc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GlibcTargetTest {
  @Test
  void comparesVersionsNumberByNumber() {
    GlibcTarget target = GlibcTarget.parse(" 2.17 ", "kernel.glibc");
    assertEquals("2.17", target.version());
    assertTrue(target.admits("GLIBC_2.2.5"));
    assertTrue(target.admits("GLIBC_2.14"));
    assertTrue(target.admits("2.17"));
    assertFalse(target.admits("GLIBC_2.18"));
    assertFalse(target.admits("GLIBC_2.34"));
    assertTrue(GlibcTarget.parse("2.28", "p").admits("GLIBC_2.28"));
  }

  @Test
  void refusesWhatIsNoReleaseItCanTarget() {
    for (String bad : List.of("2.9", "2.16", "3.1", "2.x", "", "2.17.1", "glibc-2.17")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> GlibcTarget.parse(bad, "kernel.glibc"), bad);
      assertTrue(e.getMessage().startsWith("kernel.glibc is '" + bad + "': give a glibc release as 2.N, at least 2.17"),
          e.getMessage());
    }
  }

  @Test
  void movedSymbolsNameTheLibraryThatHeldThemBefore234() {
    MovedSymbols moved = MovedSymbols.load(GlibcAbi.X86_64);
    assertEquals(Optional.of("libdl.so.2"), moved.formerLibrary("dlopen", "GLIBC_2.2.5"));
    assertEquals(Optional.of("libpthread.so.0"), moved.formerLibrary("pthread_create", "GLIBC_2.2.5"));
    assertEquals(Optional.of("librt.so.1"), moved.formerLibrary("shm_open", "GLIBC_2.2.5"));
    // libc defined these at that version already: nothing to add.
    assertEquals(Optional.empty(), moved.formerLibrary("pthread_cond_wait", "GLIBC_2.3.2"));
    assertEquals(Optional.empty(), moved.formerLibrary("clock_gettime", "GLIBC_2.17"));
    assertEquals(Optional.empty(), moved.formerLibrary("memcpy", "GLIBC_2.14"));
  }

  @Test
  void aStandInDefinesEachSymbolAtItsOldVersionAndNoDefaultOne() {
    List<RedirectPlan.Redirect> redirects = List.of(new RedirectPlan.Redirect("pthread_create", "GLIBC_2.2.5",
        "libpthread.so.0"), new RedirectPlan.Redirect("pthread_cond_timedwait", "GLIBC_2.3.2", "libpthread.so.0"));
    String assembly = FormerLibraryStub.assembly(redirects);
    assertTrue(assembly.contains(".symver ka_glibc_stub_0, pthread_create@GLIBC_2.2.5\n"), assembly);
    assertTrue(assembly.contains(".symver ka_glibc_stub_1, pthread_cond_timedwait@GLIBC_2.3.2\n"), assembly);
    assertFalse(assembly.contains("@@"), assembly);
    assertEquals("GLIBC_2.2.5 { };\nGLIBC_2.3.2 { };\n", FormerLibraryStub.versionScript(redirects));
  }
}
