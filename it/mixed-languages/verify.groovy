def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
def obj = new File(basedir, 'target/kernel/obj')

// Objects mirror the source tree and keep the source extension.
['host/api.c.o', 'host/kernels/k.cpp.o', 'host/kernels/util.cc.o', 'fwd/a.cpp.o', 'fwd/sub/b.cxx.o'].each {
  assert new File(obj, it).isFile(): "missing object $it"
}
def progress = check.progress(run)
assert progress.containsAll(['CC api.c', 'CXX kernels/k.cpp', 'CXX kernels/util.cc', 'CXX fwd/a.cpp', 'CXX fwd/sub/b.cxx'])

if (check.nvccInstalled()) {
  assert new File(obj, 'host/kernels/k.cu.o').isFile(): 'k.cu and k.cpp in one folder must both survive'
  assert progress.contains('CUDA kernels/k.cu')
  assert check.compileCounts(run) == [compiled: 6, upToDate: 0]
  assert !run.contains('Device link'): 'no device link without relocatable device code'
} else {
  println 'nvcc not installed: checking that the CUDA source was skipped with a message'
  assert run.contains('1 CUDA sources skipped: nvcc not found')
  assert check.compileCounts(run) == [compiled: 5, upToDate: 0]
}

def commands = new File(basedir, 'target/kernel/compile_commands.json').text
['api.c', 'k.cpp', 'util.cc', 'a.cpp', 'b.cxx'].each { assert commands.contains(it) }

// The library links and answers.
def out = check.runC(basedir, '#include <stdio.h>\nint mixed_sum(void);\nint main(void) { printf("%d\\n", mixed_sum()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'mixed')
assert out.trim() == '110111'
true
