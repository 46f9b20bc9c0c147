def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs.size() == 2
runs.each { log ->
  assert log.contains('kernel:build')
  assert log =~ /(?s)batchSize.*Default with.*llvm-ar.*multiple\s+of\s+2000.*GNU.*400.*User property: kernel\.batchSize/
  assert log =~ /(?s)cacheRemoteUrl.*User property: kernel\.cache\.remote\.url/
  assert log =~ /(?s)linker.*Default: auto.*User property: kernel\.linker/
  assert log =~ /(?s)symbolVersion.*User property: kernel\.symbolVersion/
}
true
