def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs.size() == 2
def lib = { String module, String name -> new File(basedir, "${module}/target/kernel/lib${name}.so") }
// Each library exports only its own API (with its version node); what it took from a dependency is private.
def exported = { File library ->
  check.sh(['nm', '-D', '--defined-only', library.path], basedir).readLines()*.tokenize(' ')
      .findAll { it[-2] != 'A' }.collect { it.last() }.sort()
}
assert exported(lib('aiter-kernels', 'aiter')) == ['aiter_tile@@AITER_1']
assert exported(lib('te-core', 'te')) == ['te_forward@@TE_1']
assert exported(lib('app', 'app')) == ['app_run@@APP_1']
// No library needs another: the dependencies are inside, privately.
['te-core/te', 'app/app'].each {
  def (module, name) = it.tokenize('/')
  def needed = check.sh(['readelf', '-d', lib(module, name).path], basedir).readLines().findAll { it.contains('(NEEDED)') }
  assert !needed.any { it.contains('libaiter') || it.contains('libte.so') }: needed
}
// They load and answer: aiter_tile(2) = 2*3+1; te_forward(2) = 70; app_run(2) = 70 + 7.
assert check.runC(basedir, '#include <stdio.h>\nint aiter_tile(int);\nint main(void) { printf("%d\\n", aiter_tile(2)); return 0; }\n',
    lib('aiter-kernels', 'aiter').parentFile, 'aiter').trim() == '7'
assert check.runC(basedir, '#include <stdio.h>\nint te_forward(int);\nint main(void) { printf("%d\\n", te_forward(2)); return 0; }\n',
    lib('te-core', 'te').parentFile, 'te').trim() == '70'
assert check.runC(basedir, '#include <stdio.h>\nint app_run(int);\nint main(void) { printf("%d\\n", app_run(2)); return 0; }\n',
    lib('app', 'app').parentFile, 'app').trim() == '77'
// Built in dependency order, both times; the second in parallel.
runs.each { run ->
  def order = ['aiter-kernels', 'te-core', 'app'].collect { run.indexOf("Building ${it} 1.0") }
  assert order.every { it >= 0 } && order == order.sort(false): order
}
assert runs[1].contains('thread count of 2'): 'run 2 is parallel'
// Installed as artifacts: the main artifact (metadata, headers) and the platform bundle.
def repo = new File(localRepositoryPath, 'it/kernelarchive/artifacts')
['aiter-kernels', 'te-core', 'app'].each { a ->
  assert new File(repo, "${a}/1.0/${a}-1.0.kernel").isFile(): a
  assert new File(repo, "${a}/1.0/${a}-1.0-linux-x86_64.kernel").isFile(): a
}
def listing = check.sh(['tar', 'tzvf', new File(repo, 'aiter-kernels/1.0/aiter-kernels-1.0-linux-x86_64.kernel').path], basedir)
['include/aiter.h', 'kernel.properties', 'lib/libaiter-host.a', 'lib/libaiter.so', 'lib/libaiter_prebuilt.a',
    'lib/libaiter_tiles.a'].each { assert listing.contains(it): listing }
assert listing.contains('root/root') || listing.contains('0/0'): 'entries owned by 0: ' + listing
true
