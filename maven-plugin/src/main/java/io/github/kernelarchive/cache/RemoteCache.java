package io.github.kernelarchive.cache;

import io.github.kernelarchive.common.BuildLog;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The remote tier: plain {@code GET} (200 hit, 404 miss) and {@code PUT} of one blob per entry
 * ({@link EntryBundle}) under {@code <url>/v3/<kind>/<key>}, the protocol of ccache's HTTP
 * storage and of Gradle's and Bazel's HTTP caches, so any WebDAV server or object store serves it.
 *
 * <p>A remote never fails the build: every fault (refused, unknown host, stalled, 5xx, 401/403,
 * a body cut short) is one warning naming the URL and the cause, and the caller goes on from local
 * work. After {@link #MAX_CONSECUTIVE_FAILURES} failures in a row the remote is switched off for
 * the rest of the build with one line. The URL is shown without user info, and credentials only
 * ever travel in the {@code Authorization} header.
 */
public final class RemoteCache implements Storage {
  static final int MAX_CONSECUTIVE_FAILURES = 3;
  private static final String LAYOUT = "v3";
  /** Assumed slowest upload rate, to give a large {@code PUT} time to send its body. */
  private static final long UPLOAD_BYTES_PER_SECOND = 1L << 20;

  /**
   * @param url the cache's base URL (http or https)
   * @param authorization the {@code Authorization} header value, or {@code null}
   * @param credentialsSource where the credentials come from, for messages ("server 'x' in settings.xml")
   * @param push whether this build may store entries
   * @param connectTimeout time to open a connection
   * @param readTimeout longest wait for the server to answer or to send more of a body
   */
  public record Settings(String url, String authorization, String credentialsSource, boolean push,
      Duration connectTimeout, Duration readTimeout) {
    @Override
    public String toString() {
      return "Settings[" + redact(url) + (authorization == null ? "" : ", with credentials") + "]";
    }
  }

  private final Settings settings;
  private final URI base;
  private final BuildLog log;
  private final HttpClient client;
  private final AtomicInteger consecutiveFailures = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private volatile boolean switchedOff;

  /** @throws IllegalArgumentException when the URL is not an http(s) URL (the message says so) */
  public RemoteCache(Settings settings, BuildLog log) {
    this.settings = settings;
    this.base = baseUri(settings.url());
    this.log = log;
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER) // credentials go to the configured server only
        .connectTimeout(settings.connectTimeout())
        .build();
  }

  /** The URL as logs show it: without user info. */
  public String displayUrl() {
    return base.toString();
  }

  public boolean push() {
    return settings.push();
  }

  @Override
  public boolean accepts() {
    return settings.push();
  }

  /** Whether the remote is still in use in this build. */
  @Override
  public boolean available() {
    return !switchedOff;
  }

  @Override
  public int failures() {
    return failures.get();
  }

  @Override
  public String describe() {
    return displayUrl();
  }

  /**
   * Downloads the entry's bundle into {@code staging} and unpacks it there; a bundle that does not
   * unpack is reported as rejected and counts as a miss.
   */
  @Override
  public Optional<CacheEntry> fetch(EntryKind kind, String key, Path staging)
      throws StorageException, InterruptedException {
    Path blob = staging.resolve("received");
    if (!get(kind, key, blob)) {
      return Optional.empty();
    }
    CacheEntry staged = new CacheEntry(kind, key, staging);
    try {
      EntryBundle.unpack(blob, kind, key, staged);
      Files.delete(blob);
    } catch (IOException e) {
      rejected(kind, key, e.getMessage());
      return Optional.empty();
    }
    return Optional.of(staged);
  }

  @Override
  public void store(CacheEntry entry) throws StorageException, InterruptedException {
    put(entry);
  }

  URI uriOf(EntryKind kind, String key) {
    return base.resolve(LAYOUT + "/" + kind.folder() + "/" + key);
  }

  /**
   * Downloads the entry's blob into {@code into}: true on a hit, false on a miss.
   *
   * @throws StorageException when the remote failed (already reported)
   */
  boolean get(EntryKind kind, String key, Path into) throws StorageException, InterruptedException {
    URI uri = uriOf(kind, key);
    HttpRequest request = request(uri).GET().build();
    CompletableFuture<HttpResponse<Void>> future = client.sendAsync(request, info -> info.statusCode() == 200
        ? HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofFile(into), path -> (Void) null)
        : HttpResponse.BodySubscribers.discarding());
    HttpResponse<Void> response = awaitWithProgress(uri, future, into);
    int status = response.statusCode();
    if (status == 200) {
      return true; // a success once it verifies: see confirmed()
    }
    if (status == 404) {
      succeeded();
      return false;
    }
    throw fail(uri, statusCause(status));
  }

  /**
   * Stores an entry.
   *
   * @throws StorageException when the remote refused or failed (already reported)
   */
  void put(CacheEntry entry) throws StorageException, InterruptedException {
    URI uri = uriOf(entry.kind(), entry.key());
    HttpRequest request;
    try {
      request = request(uri).PUT(EntryBundle.publisher(entry)).build();
    } catch (IOException e) {
      // The local entry vanished (evicted by a concurrent build): nothing to upload, not the remote's fault.
      log.debug("not uploaded, " + entry.directory() + " is gone: " + e.getMessage());
      return;
    }
    long bytes = entry.bytes();
    Duration allowed = settings.readTimeout().plusSeconds(bytes / UPLOAD_BYTES_PER_SECOND);
    HttpResponse<Void> response;
    CompletableFuture<HttpResponse<Void>> future =
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    try {
      response = future.get(allowed.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw fail(uri, "no answer to the upload within " + allowed.toSeconds() + " s");
    } catch (ExecutionException e) {
      throw fail(uri, causeOf(e.getCause()));
    }
    int status = response.statusCode();
    if (status / 100 == 2) {
      succeeded();
      return;
    }
    throw fail(uri, statusCause(status));
  }

  private HttpRequest.Builder request(URI uri) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri).header("User-Agent", "kernel-archive-maven-plugin");
    if (settings.authorization() != null) {
      builder.header("Authorization", settings.authorization());
    }
    return builder;
  }

  /**
   * Waits for a response whose body goes to {@code into}, giving up when nothing arrives (no
   * answer, or no more bytes of the body) for the read timeout: the JDK client's own timeout
   * covers only the wait for the response headers, not a body that stops half-way.
   */
  private HttpResponse<Void> awaitWithProgress(URI uri, CompletableFuture<HttpResponse<Void>> future, Path into)
      throws StorageException, InterruptedException {
    long quietLimit = settings.readTimeout().toNanos();
    long lastSize = -1;
    long lastProgress = System.nanoTime();
    while (true) {
      try {
        return future.get(50, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw fail(uri, causeOf(e.getCause()));
      } catch (TimeoutException e) {
        long size = sizeOf(into);
        if (size != lastSize) {
          lastSize = size;
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > quietLimit) {
          future.cancel(true);
          throw fail(uri, (size <= 0 ? "no answer" : "the transfer stalled after " + size + " bytes") + " for "
              + settings.readTimeout().toSeconds() + " s (kernel.cache.remote.readTimeout)");
        }
      } catch (InterruptedException e) {
        future.cancel(true);
        throw e;
      }
    }
  }

  /** A received entry verified and was used: the remote works. */
  @Override
  public void confirmed() {
    succeeded();
  }

  private void succeeded() {
    consecutiveFailures.set(0);
  }

  /** Counts and reports a fault; the remote goes quiet after too many in a row. */
  private StorageException fail(URI uri, String cause) {
    failures.incrementAndGet();
    String message = "Remote cache " + redact(uri.toString()) + ": " + cause;
    if (switchedOff) {
      log.debug(message);
      return new StorageException(message);
    }
    log.warn(message + "; the build goes on without this entry.");
    if (consecutiveFailures.incrementAndGet() >= MAX_CONSECUTIVE_FAILURES && !switchedOff) {
      synchronized (this) {
        if (!switchedOff) {
          switchedOff = true;
          log.warn("Remote cache " + displayUrl() + " switched off for the rest of this build after "
              + MAX_CONSECUTIVE_FAILURES + " failures in a row.");
        }
      }
    }
    return new StorageException(message);
  }

  /** Reports a response that arrived but cannot be used (it does not verify for its key). */
  @Override
  public void rejected(EntryKind kind, String key, String problem) {
    fail(uriOf(kind, key), "the entry does not verify (" + problem + "); it was not used");
  }

  private String statusCause(int status) {
    return switch (status) {
      case 401, 403 -> "HTTP " + status + (status == 401 ? " Unauthorized" : " Forbidden") + ": check the credentials"
          + (settings.credentialsSource() == null ? " (none configured)" : " of " + settings.credentialsSource());
      default -> "HTTP " + status + (status >= 500 ? " (server error)" : "");
    };
  }

  private String causeOf(Throwable cause) {
    if (cause instanceof HttpConnectTimeoutException) {
      return "connect timed out after " + settings.connectTimeout().toSeconds() + " s (kernel.cache.remote.connectTimeout)";
    }
    if (cause instanceof HttpTimeoutException) {
      return "no answer within " + settings.readTimeout().toSeconds() + " s (kernel.cache.remote.readTimeout)";
    }
    // The client wraps an unresolved name in a ConnectException: look for it first.
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
        return "unknown host " + base.getHost();
      }
    }
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
    }
    String detail = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return "transfer failed (" + redact(detail) + ")";
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0;
    }
  }

  private static URI baseUri(String url) {
    try {
      URI uri = new URI(url.endsWith("/") ? url : url + "/");
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
        throw new IllegalArgumentException("kernel.cache.remote.url must be an http:// or https:// URL, was " + redact(url) + ".");
      }
      // User info never goes into a request line or a log: credentials come from settings.xml.
      return new URI(scheme, null, uri.getHost(), uri.getPort(), uri.getPath(), null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("kernel.cache.remote.url is not a URL: " + redact(url) + ".");
    }
  }

  /** Removes {@code user:password@} from any URL in {@code text}. */
  public static String redact(String text) {
    return text.replaceAll("(?i)(https?://)[^/@\\s]*@", "$1");
  }
}
