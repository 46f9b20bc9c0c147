package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Records run one after another off the caller's thread; waiting for them reports the first failure, after all ran. */
class PendingRecordsTest {
  @Test
  void aFailureIsReportedOnlyOnceEveryRecordHasRun() throws Exception {
    PendingRecords records = new PendingRecords();
    List<String> ran = new CopyOnWriteArrayList<>();
    records.submit(() -> {
      ran.add("first");
      throw new AccessDeniedException("target/kernel/archive/k/manifest.txt");
    });
    records.submit(() -> {
      try {
        Thread.sleep(50); // still running when the first has failed
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      ran.add("second:" + Thread.currentThread().getName());
    });
    IOException failure = assertThrows(IOException.class, records::awaitAll);
    assertTrue(failure instanceof AccessDeniedException && failure.getMessage().contains("manifest.txt"), failure.toString());
    assertEquals(List.of("first", "second:kernel-archive-records"), ran, "in order, on the records thread, all of them");

    records.submit(() -> ran.add("after"));
    records.awaitAll(); // a new round starts a new thread; nothing from the failed round is reported again
    assertEquals("after", ran.get(2));
  }
}
