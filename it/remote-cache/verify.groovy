def check = evaluate(new File(itLib, 'checks.groovy'))
def server = new File(basedir, 'target-nginx')
try {
  def runs = check.invocations(basedir)
  assert runs.size() == 4
  def access = new File(server, 'access.log').readLines()
  def requests = { String method, String space -> access.findAll { it.contains("\"${method} /${space}/") } }
  def uploaded = { String run ->
    def m = run =~ /(\d+) uploaded/
    assert m.find(): 'no cache line in the summary'
    m.group(1) as int
  }

  // 1: the credentials of settings.xml open the server; every new entry goes up.
  assert check.compileCounts(runs[0]).compiled == 5
  assert uploaded(runs[0]) > 5
  assert requests('PUT', 'shared').size() == uploaded(runs[0])
  assert requests('PUT', 'shared').every { it.contains('" 201 ') || it.contains('" 204 ') }

  // 2: clean and read-only: the archive comes from the remote, and no PUT was sent.
  assert runs[1].contains('(read-only: kernel.cache.remote.push=false)')
  assert runs[1].contains('Compile: 0 compiled, 0 up to date, 1 from cache, 4 in current or cached archives')
  assert runs[1].contains('Archive kernels: 4 members (cache hit, validated)')
  assert uploaded(runs[1]) == 0
  assert requests('PUT', 'shared').size() == uploaded(runs[0]) : 'push=false sent a PUT'

  // 3: offline: not one request.
  assert runs[2].contains('not used: Maven runs offline (-o)')
  assert requests('GET', 'offline').isEmpty() && requests('PUT', 'offline').isEmpty()
  assert check.compileCounts(runs[2]).compiled == 5

  // 4: a wrong password: a 401 warning naming the server id, the build goes on and succeeds.
  assert runs[3].contains("HTTP 401 Unauthorized: check the credentials of server 'kernel-cache-it-wrong' in settings.xml")
  assert runs[3].contains('switched off for the rest of this build')
  assert runs[3].contains('BUILD SUCCESS')
  assert access.findAll { it.contains(' /denied/') }.every { it.contains('" 401 ') }

  // Passwords never reach a log.
  def log = new File(basedir, 'build.log').text
  assert !log.contains('it-pa55word') && !log.contains('not-the-password')

  def out = check.runC(basedir, '#include <stdio.h>\nint remote_answer(void);\nint main(void) { printf("%d\\n", remote_answer()); return 0; }\n',
      new File(basedir, 'target/kernel'), 'remote')
  assert out.trim() == '10'
} finally {
  check.stopNginx(basedir)
}
true
