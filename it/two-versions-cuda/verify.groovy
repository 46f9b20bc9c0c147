def check = evaluate(new File(itLib, 'checks.groovy'))
def lib = { String module -> new File(basedir, "${module}/target/kernel/libkvcu.so").path }
def exe = new File(basedir, 'target/which-kernel')
exe.parentFile.mkdirs()
check.sh(['cc', '-o', exe.path, new File(basedir, 'which-kernel.c').path, '-ldl'], basedir)

// Each build's API, loaded together with the other in either order, reaches its own kernel (the
// host-side handle a launch passes to the CUDA runtime lies in that library) and its own version.
assert check.sh([exe.path, lib('kvcu-1'), lib('kvcu-2')], basedir).trim() == '1:own 2:own'
assert check.sh([exe.path, lib('kvcu-2'), lib('kvcu-1')], basedir).trim() == '2:own 1:own'
def dynamic = check.sh(['readelf', '--dyn-syms', '--wide', lib('kvcu-2')], basedir)
assert dynamic.contains('kvcu_report@@KVCU_2') && !dynamic.contains('kvcu_fill'): dynamic
true
