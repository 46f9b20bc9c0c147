def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('BUILD FAILURE')
assert run.contains('1 symbol(s) defined more than once; the link would fail:')
assert run.contains('device_state_d defined in host.cpp.o and libkernels.a(bwd.cpp.o) and libkernels.a(fwd.cpp.o)')
assert run.contains("guard the host-side definition with '#ifdef __CUDACC__'")
assert !run.contains('multiple definition of'): 'reported before ld runs, not by ld'
assert !new File(basedir, 'target/kernel/libdups.so').exists()
true
