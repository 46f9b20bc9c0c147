def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def libDir = new File(basedir, 'target/kernel')

// 1: the default.
if (check.nvccInstalled()) {
  assert !runs[0].contains('sources skipped') : 'run 1 skipped sources with nvcc installed'
  assert check.compileCounts(runs[0]) == [compiled: 2, upToDate: 0]
} else {
  println 'nvcc not installed: run 1 must skip the CUDA source'
  assert runs[0].contains('1 CUDA sources skipped: nvcc not found')
}

// 2: switched off: one warning naming the switch, no archs complaint, nothing recompiled, and
// the library relinked without the CUDA object still loads and answers.
assert runs[1].contains('1 CUDA sources skipped: CUDA switched off (kernel.cuda.nvcc=none)') : 'no skip warning in run 2'
assert check.compileCounts(runs[1]) == [compiled: 0, upToDate: 1]
def program = '#include <stdio.h>\nint optional_cuda_answer(void);\nint main(void) { printf("%d\\n", optional_cuda_answer()); return 0; }\n'
assert check.runC(basedir, program, libDir, 'optional').trim() == '-1'
// An archive whose every source was skipped is dropped, its last output deleted.
assert runs[1].contains('1 skipped')
assert !new File(libDir, 'libgpu.a').exists() : 'a stale libgpu.a from run 1 is still there'
// The weak launcher is resolved (or not) at link time, never looked up at load time.
def dynsym = check.sh(['nm', '-D', new File(libDir, 'liboptional.so').path], basedir)
assert !dynsym.contains('cuda_launcher_answer') : dynsym
true
