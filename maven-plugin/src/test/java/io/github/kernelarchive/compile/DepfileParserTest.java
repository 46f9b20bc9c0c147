package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class DepfileParserTest {

  @Test
  void gccRuleWithContinuations() {
    String depfile = "obj/k.cpp.o: src/k.cpp include/a.h \\\n include/b.h \\\n /usr/include/stdio.h\n";
    assertEquals(List.of("src/k.cpp", "include/a.h", "include/b.h", "/usr/include/stdio.h"),
        DepfileParser.prerequisites(depfile));
  }

  @Test
  void escapedSpacesHashesAndDollars() {
    String depfile = "my\\ obj.o: dir\\ with\\ space/k\\ 1.cpp odd\\#name.h cost$$.h quote\"d.h @at.h\n";
    assertEquals(List.of("dir with space/k 1.cpp", "odd#name.h", "cost$.h", "quote\"d.h", "@at.h"),
        DepfileParser.prerequisites(depfile));
  }

  @Test
  void nvccSpacingAroundTheColon() {
    String depfile = "a.o : a\\ b.cu \\\n    /usr/local/cuda/include/cuda_runtime.h \\\n    k.h\n";
    assertEquals(List.of("a b.cu", "/usr/local/cuda/include/cuda_runtime.h", "k.h"),
        DepfileParser.prerequisites(depfile));
  }

  @Test
  void phonyRulesOfMinusMpAndSeveralTargets() {
    String depfile = "a.o a.d: a.c x.h y.h\nx.h:\n\ny.h:\n";
    assertEquals(List.of("a.c", "x.h", "y.h"), DepfileParser.prerequisites(depfile));
  }

  @Test
  void windowsLineEndingsAndDuplicates() {
    String depfile = "a.o: a.c \\\r\n x.h \\\r\n x.h\r\n";
    assertEquals(List.of("a.c", "x.h"), DepfileParser.prerequisites(depfile));
  }

  @Test
  void colonInsideANameIsNotARule() {
    String depfile = "a.o: dir/we:ird.h other.h\n";
    assertEquals(List.of("dir/we:ird.h", "other.h"), DepfileParser.prerequisites(depfile));
  }

  @Test
  void emptyAndGarbageGiveNothing() {
    assertEquals(List.of(), DepfileParser.prerequisites(""));
    assertEquals(List.of(), DepfileParser.prerequisites("no rule here\n"));
  }
}
