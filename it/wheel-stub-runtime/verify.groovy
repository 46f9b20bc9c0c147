def check = evaluate(new File(itLib, 'checks.groovy'))
def target = new File(basedir, 'target')
def wheel = target.listFiles().find { it.name.endsWith('.whl') }
assert wheel != null && wheel.name.startsWith('ks-2.0.0-py3-none-manylinux_'): target.list()

def unpacked = new File(target, 'unpacked')
check.sh(['/usr/bin/python3', '-m', 'wheel', 'unpack', '-d', unpacked.path, wheel.path], basedir)
def dynamic = check.sh(['readelf', '-d', new File(unpacked, 'ks-2.0.0/ks/libks.so').path], basedir)
assert !dynamic.contains('libcudart'): 'no NEEDED on the CUDA runtime: ' + dynamic
assert dynamic.contains('Library rpath: [$ORIGIN/../nvidia/cu13/lib:$ORIGIN/../nvidia/cuda_runtime/lib]'): dynamic
def metadata = new File(unpacked, 'ks-2.0.0/ks-2.0.0.dist-info/METADATA').text
assert !(metadata =~ /(?m)^Requires-Dist: nvidia-cuda-runtime[^;]*$/): 'no runtime requirement: ' + metadata
assert metadata.contains('Provides-Extra: cu12\nRequires-Dist: nvidia-cuda-runtime-cu12>=12,<13; extra == "cu12"\n'): metadata
assert metadata.contains('Provides-Extra: cu13\nRequires-Dist: nvidia-cuda-runtime>=13,<14; extra == "cu13"\n'): metadata

// pip install ks[cu13], ks[cu12], and ks alone, each into a fresh venv, offline, without LD_LIBRARY_PATH.
// Python runs under the dynamic loader with --inhibit-cache: a machine with a CUDA toolkit in
// ld.so.cache (this one) would otherwise hand the stub its libcudart.so.13 before any wheel's.
def loader = ['/lib64/ld-linux-x86-64.so.2', '/lib/ld-linux-aarch64.so.1'].find { new File(it).exists() }
def call = { File venv ->
  def sitePackages = new File(venv, 'lib').listFiles().find { it.name.startsWith('python3') }.path + '/site-packages'
  def p = new ProcessBuilder(loader, '--inhibit-cache', '/usr/bin/python3', '-c',
      "import sys; sys.path.insert(0, '${sitePackages}'); import ks; print(ks.runtime_version())".toString())
      .directory(target)
  p.environment().remove('LD_LIBRARY_PATH')
  def proc = p.start()
  def out = proc.inputStream.text
  def err = proc.errorStream.text
  assert proc.waitFor() == 0: out + err
  [out.trim(), err]
}
def findLinks = new File(target, 'stand-in-wheels')
['cu13': '13096', 'cu12': '12079'].each { extra, version ->
  def venv = new File(target, "venv-${extra}")
  check.venvWith(venv, [], [])
  check.sh([new File(venv, 'bin/pip').path, 'install', '--no-index', '--disable-pip-version-check', '--find-links',
      findLinks.path, "${wheel.path}[${extra}]".toString()], target)
  assert call(venv)[0] == version
}
def bare = new File(target, 'venv-none')
check.venvWith(bare, [wheel])
def (out, err) = call(bare)
assert out == '-35': 'the stub returns cudaErrorInsufficientDriver: ' + out + err
assert err.contains('kernel-archive stub: could not load'): err
true
