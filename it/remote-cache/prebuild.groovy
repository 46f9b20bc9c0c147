// Starts nginx on 127.0.0.1 (a free port) with WebDAV PUT and basic auth, for this IT only. It runs
// under `timeout`, so it stops by itself even if the verify script never runs; verify.groovy stops it.
def server = new File(basedir, 'target-nginx')
['data', 'tmp'].each { new File(server, it).mkdirs() }
new File(server, 'htpasswd').text = 'ci:{PLAIN}it-pa55word\n'
def port = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()).withCloseable { it.localPort }
def d = server.absolutePath
new File(server, 'nginx.conf').text = """daemon off;
master_process off;
worker_processes 1;
error_log ${d}/error.log;
pid ${d}/nginx.pid;
events { worker_connections 64; }
http {
  access_log ${d}/access.log;
  client_body_temp_path ${d}/tmp/body;
  proxy_temp_path ${d}/tmp/proxy;
  fastcgi_temp_path ${d}/tmp/fastcgi;
  uwsgi_temp_path ${d}/tmp/uwsgi;
  scgi_temp_path ${d}/tmp/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:${port};
    root ${d}/data;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      auth_basic "kernel cache";
      auth_basic_user_file ${d}/htpasswd;
    }
  }
}
"""
def nginx = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find { new File(it).canExecute() }
new ProcessBuilder('timeout', '600', nginx, '-e', "${d}/error.log", '-p', d, '-c', "${d}/nginx.conf")
    .redirectErrorStream(true).redirectOutput(new File(server, 'stdout.log')).start()
def deadline = System.currentTimeMillis() + 10_000
while (true) {
  try {
    new Socket('127.0.0.1', port).close()
    break
  } catch (IOException e) {
    assert System.currentTimeMillis() < deadline: 'nginx did not start: ' + new File(server, 'error.log').text
    Thread.sleep(50)
  }
}
// The URL reaches every step through the project's Maven configuration.
new File(basedir, '.mvn').mkdirs()
new File(basedir, '.mvn/maven.config').text = "-Dka.remote=http://127.0.0.1:${port}\n"
true
