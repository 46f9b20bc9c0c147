def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('BUILD FAILURE')
assert run.contains('2 symbol(s) defined more than once; the link would fail:')
assert run.contains('variable device_state_d defined in host.cpp.o and libkernels.a(bwd.cpp.o) and libkernels.a(fwd.cpp.o)')
assert run.contains("guard the host-side definition with '#ifdef __CUDACC__'")
// A function defined in a header two sources include: demangled (the mangled name beside it), the
// header named, and the hint for functions.
assert run.contains('function layernorm_forward(float*, float const*, int) [_Z17layernorm_forwardPfPKfi] defined in'
    + ' libkernels.a(bwd.cpp.o) and libkernels.a(fwd.cpp.o)')
assert run.contains("Include it from one source only, or mark its functions 'inline' (or 'static').")
assert run.contains('Headers every definer read that name it:')
assert (run =~ /layernorm_forward\(float\*, float const\*, int\): \S*src\/main\/include\/layernorm.h\n/).find(): run
assert !run.contains('multiple definition of'): 'reported before ld runs, not by ld'
assert !new File(basedir, 'target/kernel/libdups.so').exists()
true
