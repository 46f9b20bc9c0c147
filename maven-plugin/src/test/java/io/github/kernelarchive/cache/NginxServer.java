package io.github.kernelarchive.cache;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's nginx on 127.0.0.1 (a free port), serving a cache folder with WebDAV {@code PUT} and
 * basic auth, as a team would run it (docs/cache.md has the same configuration). Runs in the
 * foreground as a single process owned by the test, with its own prefix, logs and password file.
 */
public final class NginxServer implements AutoCloseable {
  private static final List<Path> LOCATIONS = List.of(Path.of("/usr/sbin/nginx"), Path.of("/usr/local/sbin/nginx"),
      Path.of("/usr/bin/nginx"));

  private final Path directory;
  private final int port;
  private final Process process;

  /** nginx's executable, or null when it is not installed. */
  public static Path executable() {
    return LOCATIONS.stream().filter(Files::isExecutable).findFirst().orElse(null);
  }

  public NginxServer(Path directory, String user, String password) throws Exception {
    this.directory = directory;
    Files.createDirectories(directory.resolve("data"));
    Files.createDirectories(directory.resolve("tmp"));
    Files.writeString(directory.resolve("htpasswd"), user + ":{PLAIN}" + password + "\n");
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    String d = directory.toString();
    Files.writeString(directory.resolve("nginx.conf"), String.join("\n",
        "daemon off;",
        "master_process off;",
        "worker_processes 1;",
        "error_log " + d + "/error.log;",
        "pid " + d + "/nginx.pid;",
        "events { worker_connections 128; }",
        "http {",
        "  access_log " + d + "/access.log;",
        "  client_body_temp_path " + d + "/tmp/body;",
        "  proxy_temp_path " + d + "/tmp/proxy;",
        "  fastcgi_temp_path " + d + "/tmp/fastcgi;",
        "  uwsgi_temp_path " + d + "/tmp/uwsgi;",
        "  scgi_temp_path " + d + "/tmp/scgi;",
        "  client_max_body_size 0;",
        "  server {",
        "    listen 127.0.0.1:" + port + ";",
        "    root " + d + "/data;",
        "    location /cache/ {",
        "      dav_methods PUT;",
        "      create_full_put_path on;",
        "      dav_access user:rw group:r all:r;",
        "      auth_basic \"kernel cache\";",
        "      auth_basic_user_file " + d + "/htpasswd;",
        "    }",
        "  }",
        "}", ""));
    process = new ProcessBuilder(executable().toString(), "-e", d + "/error.log", "-p", d, "-c", d + "/nginx.conf")
        .redirectErrorStream(true).redirectOutput(directory.resolve("stdout.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          close();
          throw new IllegalStateException("nginx did not start: " + Files.readString(directory.resolve("stdout.log"))
              + readQuietly(directory.resolve("error.log")));
        }
        Thread.sleep(50);
      }
    }
  }

  public String url() {
    return "http://127.0.0.1:" + port + "/cache";
  }

  /** The request lines nginx logged ("PUT /cache/v3/... HTTP/1.1" 201 ...). */
  public List<String> accessLog() throws IOException {
    Path log = directory.resolve("access.log");
    return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
  }

  public long count(String method) throws IOException {
    return accessLog().stream().filter(l -> l.contains("\"" + method + " ")).count();
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
