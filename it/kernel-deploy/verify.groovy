def check = evaluate(new File(itLib, 'checks.groovy'))
try {
  def runs = check.invocations(basedir)
  assert runs.size() == 4
  def access = new File(basedir, 'target-nginx/access.log').readLines()
  // Deployed with the credentials from settings.xml: PUTs answered 201/204, none refused.
  def puts = access.findAll { it.contains('"PUT /repo/it/kernelarchive/deploy/producer/1.0-SNAPSHOT/') }
  assert puts.any { it.contains('-linux-x86_64.kernel') } && puts.every { it =~ /" 20[14] / }: puts.join('\n')
  // The consumer's local repository started empty: the producer came from nginx.
  assert access.any { it.contains('"GET /repo/it/kernelarchive/deploy/producer/1.0-SNAPSHOT/') && it.contains('-linux-x86_64.kernel') && it =~ /" 200 / }
  assert runs[1].contains('(linked with') && runs[3].contains('(linked with'): 'the new SNAPSHOT relinked the consumer'
  assert runs[3].contains('Compile: 0 compiled'): 'its header did not change, so nothing recompiled'
  def out = check.runC(basedir, '#include <stdio.h>\nint c_answer(void);\nint main(void) { printf("%d\\n", c_answer()); return 0; }\n',
      new File(basedir, 'consumer/target/kernel'), 'consumer')
  assert out.trim() == '20': 'the redeployed producer answers 2'
} finally {
  check.stopNginx(basedir)
}
true
