import groovy.json.JsonSlurper

def slicesOf = { File file ->
  assert file.isFile(): "no ${file}"
  def trace = new JsonSlurper().parse(file)   // valid JSON, or this throws
  def events = trace.traceEvents
  assert events instanceof List && !events.isEmpty()
  events.each { e ->
    assert e.ph in ['X', 'M']: e
    assert e.pid instanceof Integer && e.tid instanceof Integer && e.name instanceof String: e
    if (e.ph == 'X') {
      assert e.ts instanceof Number && e.dur instanceof Number && e.dur >= 1 && e.cat instanceof String: e
    }
  }
  events.findAll { it.ph == 'X' }
}

// The successful build: one slice per compile (21 sources), per ar batch (2 archives of 10 in batches of 5), the link.
def slices = slicesOf(new File(basedir, 'target/kernel/trace.json'))
def compiles = slices.findAll { it.cat == 'compile' }
assert compiles.size() == 21: compiles*.name
assert compiles*.name.toSet() == ((0..<10).collect { "first/k${it}.c".toString() } + (10..<20).collect { "second/k${it}.c".toString() } + ['api.c']).toSet()
assert slices.count { it.cat == 'ar' } == 4
assert slices.count { it.name == 'link libtraced.so' } == 1
assert slices.count { it.name == 'audit' } == 1
assert slices.count { it.name.startsWith('combine ') } == 2

// On one worker, compile slices follow each other without overlapping.
compiles.groupBy { it.tid }.each { tid, onWorker ->
  def ordered = onWorker.sort { it.ts }
  for (int i = 1; i < ordered.size(); i++) {
    assert ordered[i - 1].ts + ordered[i - 1].dur <= ordered[i].ts: "overlap on worker ${tid}: ${ordered[i - 1]} ${ordered[i]}"
  }
}
// The thread names are there for the viewer.
def trace = new JsonSlurper().parse(new File(basedir, 'target/kernel/trace.json'))
assert trace.traceEvents.findAll { it.ph == 'M' && it.name == 'thread_name' }.size() >= 2

// The failed build wrote its timeline too, with the failed compile in it.
def failed = slicesOf(new File(basedir, 'target/kernel-failed/trace.json'))
assert failed.any { it.cat == 'compile' && it.name == 'first/k0.c' && it.args?.detail == 'failed' }
true
