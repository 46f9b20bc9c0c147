// Helpers for the verify scripts of the Invoker ITs. A verify script loads them with
//   def check = evaluate(new File(itLib, 'checks.groovy'))
// and gets back this map of closures.

// build.log holds every invocation of one IT (invoker.goals.1, .2, ...): split it per Maven run.
def invocations = { File basedir ->
  // Maven 3.8 writes colour resets (ESC[0m) even in batch mode: drop them before matching lines.
  def text = new File(basedir, 'build.log').getText('UTF-8').replaceAll(/\u001B\[[;\d]*m/, '')
  def runs = text.split(/(?m)^\[INFO\] Scanning for projects\.\.\.$/).toList()
  runs.remove(0) // whatever came before the first run
  runs
}

// The summary line of the compile stage, e.g. [compiled: 2, upToDate: 10].
def compileCounts = { String run ->
  def m = run =~ /Compile: (\d+) compiled, (\d+) up to date/
  assert m.find(): "no compile summary line in:\n" + run
  [compiled: m.group(1) as int, upToDate: m.group(2) as int]
}

// The sources named by the [n/N] progress lines of one run, e.g. ['CC a.c', 'CXX sub/b.cpp'].
def progress = { String run ->
  (run =~ /(?m)^\[INFO\] \[\d+\/\d+\] (\S+ .*)$/).collect { it[1] }.sort()
}

// Runs a command, failing with its output when it exits nonzero; returns the output.
def sh = { List<String> argv, File dir, Map<String, String> env = [:] ->
  def pb = new ProcessBuilder(argv).directory(dir).redirectErrorStream(true)
  pb.environment().putAll(env)
  def p = pb.start()
  def out = p.inputStream.getText('UTF-8')
  assert p.waitFor() == 0: "${argv.join(' ')} failed:\n${out}"
  out
}

// Compiles a C program against lib<name>.so in libDir, runs it and returns its output: proves
// that the library the build produced loads and answers.
def runC = { File basedir, String program, File libDir, String name ->
  def src = new File(basedir, 'target/check.c')
  src.parentFile.mkdirs()
  src.text = program
  def exe = new File(basedir, 'target/check')
  sh(['cc', '-o', exe.path, src.path, "-L${libDir.path}".toString(), "-l${name}".toString(),
      "-Wl,-rpath,${libDir.path}".toString()], basedir)
  sh([exe.path], basedir)
}

def nvccInstalled = {
  ['CUDA_HOME', 'CUDA_PATH'].any { System.getenv(it) && new File(System.getenv(it), 'bin/nvcc').canExecute() } ||
      System.getenv('PATH').split(':').any { new File(it, 'nvcc').canExecute() } ||
      new File('/usr/local/cuda/bin/nvcc').canExecute()
}

// For selector scripts: whether the IT can run; when not, why, on the console (Invoker keeps what a
// script prints for build.log, so this writes to the process's own stdout too) and in build.log.
def runsWhen = { boolean present, String name, String reason ->
  if (!present) {
    def line = "SKIPPED ${name}: ${reason}".toString()
    new PrintStream(new FileOutputStream(FileDescriptor.out), true).println('[WARNING] ' + line)
    println line
  }
  present
}

// A selector's check for a tool from a Debian package (InstalledTest holds the names to dpkg's).
def requireTool = { String name, String executable, String debianPackage ->
  def present = System.getenv('PATH').split(':').any { new File(it, executable).canExecute() }
  runsWhen(present, name, "${executable} is not installed (apt-get install ${debianPackage})".toString())
}

def requireNvcc = { String name ->
  runsWhen(nvccInstalled(), name, 'nvcc is not installed (the CUDA toolkit: NVIDIA\'s installer, or Debian\'s'
      + ' nvidia-cuda-toolkit from non-free)')
}

// Starts nginx on 127.0.0.1 (a free port) in <basedir>/target-nginx, serving <basedir>/target-nginx/data with
// WebDAV PUT and basic auth (user ci, password it-pa55word, as it/settings.xml holds them): a cache server or a
// Maven repository for one IT. It runs under `timeout`, so it stops by itself even if no verify script runs;
// stopNginx stops it. Returns the port.
def startNginx = { File basedir ->
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
        auth_basic "kernel-archive IT";
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
  port
}

def stopNginx = { File basedir ->
  def pid = new File(basedir, 'target-nginx/nginx.pid')
  if (pid.exists()) {
    ['kill', pid.text.trim()].execute().waitFor()
  }
}

// For the wheel ITs' selectors: whether Debian's Python has venv (and pip in it) and the wheel tool,
// which verifies RECORD (python3-venv, python3-wheel).
def pythonReady = {
  new File('/usr/bin/python3').canExecute() &&
      new ProcessBuilder('/usr/bin/python3', '-c', 'import venv, ensurepip, wheel').start().waitFor() == 0
}

// Copies the project (pom.xml and src, not target) to dir, runs Maven there as Invoker ran it (same
// Maven, settings and local repository, offline), and returns its output: a second checkout.
def mavenInCopy = { File basedir, File dir, localRepository, List<String> goals ->
  dir.mkdirs()
  sh(['cp', '-R', new File(basedir, 'pom.xml').path, new File(basedir, 'src').path, dir.path], basedir)
  def settings = new File(basedir.parentFile, 'interpolated-settings.xml')
  assert settings.isFile(): "no ${settings}: where does this Invoker version write its settings?"
  def mvn = new File(System.getProperty('maven.home'), 'bin/mvn').path
  def argv = [mvn, '-B', '-o', '-s', settings.path, "-Dmaven.repo.local=${localRepository}".toString(),
      '-Dkernel.cache.enabled=false'] + goals
  def p = new ProcessBuilder(argv).directory(dir).redirectErrorStream(true).start()
  def out = p.inputStream.getText('UTF-8')
  p.waitFor()
  out
}

// A stand-in for one of NVIDIA's wheels: a small C library with the real SONAME, at the real folder
// inside the wheel, with a .dist-info that names the distribution, packed by Debian's wheel tool
// into wheelDir. Returns the wheel.
def standInWheel = { File work, File wheelDir, String distribution, String version, String folder, String soname,
    String cSource ->
  def name = distribution.replace('-', '_')
  def root = new File(work, "${name}-${version}")
  def lib = new File(root, folder)
  lib.mkdirs()
  def src = new File(work, "${name}.c")
  src.text = cSource
  sh(['cc', '-shared', '-fPIC', '-o', new File(lib, soname).path, "-Wl,-soname,${soname}".toString(), src.path], work)
  def distInfo = new File(root, "${name}-${version}.dist-info")
  distInfo.mkdirs()
  new File(distInfo, 'METADATA').text = "Metadata-Version: 2.1\nName: ${distribution}\nVersion: ${version}\n"
  new File(distInfo, 'WHEEL').text = 'Wheel-Version: 1.0\nGenerator: it\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_17_x86_64\n'
  wheelDir.mkdirs()
  sh(['/usr/bin/python3', '-m', 'wheel', 'pack', '-d', wheelDir.path, root.path], work)
  wheelDir.listFiles().find { it.name.startsWith("${name}-${version}-") }
}

// A fresh virtualenv with the given wheels installed offline; returns its site-packages folder.
def venvWith = { File venv, List<File> wheels, List<File> findLinks = [] ->
  sh(['/usr/bin/python3', '-m', 'venv', venv.path], venv.parentFile)
  if (wheels) {
    sh([new File(venv, 'bin/pip').path, 'install', '--no-index', '--disable-pip-version-check'] +
        findLinks.collectMany { ['--find-links', it.path] } + wheels*.path, venv.parentFile)
  }
  new File(venv, 'lib').listFiles().find { it.name.startsWith('python3') }.toPath().resolve('site-packages').toFile()
}

// A JDK 22 or newer for the FFM ITs: JDK22_HOME, else the newest under /usr/lib/jvm; null when none.
// Returns [home: path, version: its feature release, e.g. 25].
def modernJdk = {
  def candidates = []
  if (System.getenv('JDK22_HOME')) {
    candidates << new File(System.getenv('JDK22_HOME'))
  }
  def jvm = new File('/usr/lib/jvm')
  if (jvm.isDirectory()) {
    candidates.addAll(jvm.listFiles().findAll { it.isDirectory() }.sort { it.name })
  }
  def found = candidates.collect { home ->
    def release = new File(home, 'release')
    // (A Matcher's truth in Groovy is its find(): ask it once.)
    def version = release.isFile() ? (release.text =~ /JAVA_VERSION="(\d+)/) : null
    (version != null && version.find() && new File(home, 'bin/javac').canExecute())
        ? [home: home.path, version: version.group(1) as int] : null
  }.findAll { it != null && it.version >= 22 }
  found ? found.max { it.version } : null
}

[invocations: invocations, modernJdk: modernJdk, compileCounts: compileCounts, progress: progress, sh: sh, runC: runC,
 nvccInstalled: nvccInstalled, runsWhen: runsWhen, requireTool: requireTool, requireNvcc: requireNvcc,
 startNginx: startNginx, stopNginx: stopNginx, pythonReady: pythonReady, mavenInCopy: mavenInCopy,
 standInWheel: standInWheel, venvWith: venvWith]
