def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs.size() == 3
def repo = new File(localRepositoryPath, 'it/kernelarchive/platform/producer/1.0')
assert new File(repo, 'producer-1.0-linux-riscv64.kernel').isFile()
assert !new File(repo, 'producer-1.0-linux-x86_64.kernel').exists()
assert runs[1].contains('Kernel dependency it.kernelarchive.platform:producer:1.0 has no bundle for this platform: looked for'
    + ' it.kernelarchive.platform:producer:kernel:linux-x86_64:1.0 (classifier linux-x86_64) in the reactor and the'
    + ' repositories; bundles found beside producer-1.0.kernel: linux-riscv64.'): runs[1]
assert runs[2].contains('Kernel dependency it.kernelarchive.platform:producer:1.0 was built for linux-riscv64'): runs[2]
assert runs[2].contains('this build is for linux-x86_64')
assert !new File(basedir, 'consumer/target/kernel/libconsumer.so').exists(): 'nothing was linked'
true
