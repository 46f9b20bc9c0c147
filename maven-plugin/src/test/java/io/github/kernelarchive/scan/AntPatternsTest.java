package io.github.kernelarchive.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AntPatternsTest {
  @Test
  void theDefaultExcludesMatchBackupsLocksAndVersionControlNames() {
    for (String name : new String[] {"k.cu~", ".#k.cu", "#k.cu#", "%k%", "._k.cu", ".git", "CVS", ".DS_Store",
        "-darcs-backup1", "vssver.scc"}) {
      assertTrue(AntPatterns.DEFAULT_EXCLUDES.matchesName(name), name);
    }
    for (String name : new String[] {"k.cu", "kernel_00001.o", "CVSfile", "Makefile", "k~.cu"}) {
      assertFalse(AntPatterns.DEFAULT_EXCLUDES.matchesName(name), name);
    }
  }

  /** The screen of first and last characters only spares work: for any name, the same answer as matching it. */
  @Test
  void aNameMatchesAsTheWholeMatcherSays() {
    Random random = new Random(27112026);
    String alphabet = "ab.#~%_-C*?/";
    List<AntPatterns> sets = new ArrayList<>(List.of(AntPatterns.DEFAULT_EXCLUDES, AntPatterns.of(List.of())));
    for (int s = 0; s < 200; s++) {
      List<String> patterns = new ArrayList<>();
      for (int p = random.nextInt(4); p >= 0; p--) {
        patterns.add((random.nextBoolean() ? "**/" : "") + word(random, alphabet, 1 + random.nextInt(4))
            + (random.nextInt(4) == 0 ? "/**" : ""));
      }
      if (random.nextInt(10) == 0) {
        patterns.add("%regex[.*b]");
      }
      sets.add(AntPatterns.of(patterns));
    }
    String names = "ab.#~%_-C";
    for (AntPatterns set : sets) {
      for (int n = 0; n < 300; n++) {
        String name = word(random, names, random.nextInt(6));
        assertEquals(set.matches(name), set.matchesName(name), "'" + name + "'");
      }
    }
  }

  private static String word(Random random, String alphabet, int length) {
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < length; i++) {
      word.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return word.toString();
  }
}
