package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CompileJobTest {
  /** What keys were made with before: the placeholder by a regular expression. */
  private static String byExpression(String arg, String root) {
    return Pattern.compile(Pattern.quote(root) + "(?=/|=|:|$)").matcher(arg)
        .replaceAll(Matcher.quoteReplacement("<project>"));
  }

  @Test
  void theProjectDirectoryIsReplacedWhereItIsAWholePrefix() {
    String root = "/w/proj";
    assertEquals("-I<project>/include", CompileJob.withPlaceholder("-I/w/proj/include", root));
    assertEquals("-ffile-prefix-map=<project>=.", CompileJob.withPlaceholder("-ffile-prefix-map=/w/proj=.", root));
    assertEquals("-I/w/proj-sdk/include", CompileJob.withPlaceholder("-I/w/proj-sdk/include", root));
    assertEquals("<project>:<project>/a", CompileJob.withPlaceholder("/w/proj:/w/proj/a", root));
    assertEquals("<project>", CompileJob.withPlaceholder("/w/proj", root));
    assertEquals("-O2", CompileJob.withPlaceholder("-O2", root));
  }

  /** Keys stay those of earlier builds: the same text as the expression gives, for any argument. */
  @Test
  void theSameTextAsTheExpressionGaveForAnyArgument() {
    Random random = new Random(20261127);
    String[] pieces = {"/w/p", "/w/pp", "/", "=", ":", "-", "x", "\n", "\r\n", "\r", "\u2028", "$", "\\", "<"};
    for (int i = 0; i < 20_000; i++) {
      String root = random.nextBoolean() ? "/w/p" : "/w/p$x\\E.";
      StringBuilder arg = new StringBuilder();
      for (int n = random.nextInt(8); n > 0; n--) {
        arg.append(random.nextInt(3) == 0 ? root : pieces[random.nextInt(pieces.length)]);
      }
      assertEquals(byExpression(arg.toString(), root), CompileJob.withPlaceholder(arg.toString(), root),
          "argument '" + arg + "', root '" + root + "'");
    }
  }
}
