def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
def wheel = 'kp-3.1-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl'
assert new File(basedir, 'target/' + wheel).isFile(): new File(basedir, 'target').list()
// Maven 3.9 names the plugin by its prefix (kernel:), 3.8 by its artifactId.
assert run =~ /--- [\w.-]+:[^:]+:wheel \(default-wheel\) @ kp ---\n\[INFO\] Wheel: kp-3\.1-/: 'the kernel lifecycle binds wheel at package'
assert run.contains('[INFO] [1/1] PASSED test_triple'): 'and python-test at integration-test'
// Attached with the tags as classifier, so install (and deploy) publish it.
def installed = new File(localRepositoryPath, 'it/kernelarchive/wheels/kp/3.1/kp-3.1-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl')
assert installed.isFile(): installed.parentFile.list()
assert installed.bytes == new File(basedir, 'target/' + wheel).bytes
true
