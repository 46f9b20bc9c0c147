package io.github.kernelarchive.cache;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cache server for fault injection, on 127.0.0.1: in {@link Mode#STORE} it keeps what is
 * {@code PUT} and serves it back; every other mode answers with one fault. Raw sockets, so it can
 * do what no well-behaved server does (stall, cut a body short). Every request is recorded.
 */
public final class FaultServer implements AutoCloseable {
  public enum Mode { STORE, STALL, ERROR_500, UNAUTHORIZED, FORBIDDEN, TRUNCATE, POISON }

  private final ServerSocket socket;
  private final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  private final List<Socket> open = Collections.synchronizedList(new ArrayList<>());
  private volatile Mode mode = Mode.STORE;

  public FaultServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "fault-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public String url() {
    return "http://127.0.0.1:" + socket.getLocalPort() + "/cache";
  }

  public void mode(Mode mode) {
    this.mode = mode;
  }

  /** "METHOD /path" of every request so far. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  public int stored() {
    return blobs.size();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      try {
        Socket client = socket.accept();
        open.add(client);
        Thread handler = new Thread(() -> handle(client), "fault-server-conn");
        handler.setDaemon(true);
        handler.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void handle(Socket client) {
    try (client; InputStream in = client.getInputStream(); OutputStream out = client.getOutputStream()) {
      client.setSoTimeout(30_000);
      String head = readHead(in);
      String[] requestLine = head.lines().findFirst().orElse("").split(" ");
      String method = requestLine[0];
      String path = requestLine.length > 1 ? requestLine[1] : "/";
      long length = 0;
      for (String line : head.lines().toList()) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Long.parseLong(line.substring(15).trim());
        }
      }
      byte[] body = in.readNBytes((int) length);
      requests.add(method + " " + path);
      switch (mode) {
        case STALL -> {
          Thread.sleep(60_000); // until the test closes the server
          return;
        }
        case ERROR_500 -> respond(out, "500 Internal Server Error", new byte[0], -1);
        case UNAUTHORIZED -> respond(out, "401 Unauthorized", new byte[0], -1);
        case FORBIDDEN -> respond(out, "403 Forbidden", new byte[0], -1);
        default -> serve(out, method, path, body);
      }
    } catch (IOException | InterruptedException e) {
      // the client went away, or the server is closing
    }
  }

  private void serve(OutputStream out, String method, String path, byte[] body) throws IOException {
    if (method.equals("PUT")) {
      blobs.put(path, body);
      respond(out, "201 Created", new byte[0], -1);
      return;
    }
    byte[] blob = blobs.get(path);
    if (blob == null) {
      respond(out, "404 Not Found", new byte[0], -1);
    } else if (mode == Mode.TRUNCATE) {
      respond(out, "200 OK", blob, blob.length / 2); // promises all, sends half, hangs up
    } else if (mode == Mode.POISON) {
      byte[] poisoned = blob.clone();
      poisoned[poisoned.length - 1] ^= 0x5a; // a well-formed response whose entry is not what was stored
      respond(out, "200 OK", poisoned, -1);
    } else {
      respond(out, "200 OK", blob, -1);
    }
  }

  /** Sends a response announcing all of {@code body} but writing only {@code send} bytes when that is not -1. */
  private static void respond(OutputStream out, String status, byte[] body, int send) throws IOException {
    String head = "HTTP/1.1 " + status + "\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n"
        + (status.startsWith("401") ? "WWW-Authenticate: Basic realm=\"cache\"\r\n" : "") + "\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body, 0, send < 0 ? body.length : send);
    out.flush();
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    for (int b; matched < 4 && (b = in.read()) >= 0; ) {
      head.write(b);
      matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
    synchronized (open) {
      for (Socket s : open) {
        s.close();
      }
    }
  }
}
