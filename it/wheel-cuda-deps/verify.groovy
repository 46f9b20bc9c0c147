def check = evaluate(new File(itLib, 'checks.groovy'))
def target = new File(basedir, 'target')
def findLinks = new File(target, 'stand-in-wheels')
def runs = check.invocations(basedir)

[13: [runtime: 'nvidia-cuda-runtime>=13.0.96,<14', folder: 'nvidia/cu13/lib', soname: 'libcudart.so.13', answer: '13103'],
 12: [runtime: 'nvidia-cuda-runtime-cu12>=12.9.79,<13', folder: 'nvidia/cuda_runtime/lib', soname: 'libcudart.so.12',
      answer: '12086']].each { cuda, expected ->
  def build = new File(target, "build-${cuda}")
  def wheels = build.listFiles().findAll { it.name.endsWith('.whl') }
  assert wheels.size() == 1: wheels
  def wheel = wheels[0]
  assert wheel.name.startsWith('kd-0.3.0-py3-none-manylinux_'): wheel.name

  // The build tree's library reaches the build venv by absolute RPATH; the wheel's copy must not.
  def unpacked = new File(build, 'unpacked')
  check.sh(['/usr/bin/python3', '-m', 'wheel', 'unpack', '-d', unpacked.path, wheel.path], basedir)
  def lib = new File(unpacked, 'kd-0.3.0/kd/libkd.so')
  def dynamic = check.sh(['readelf', '-d', lib.path], basedir)
  def rpath = (dynamic =~ /\((RPATH|RUNPATH)\)\s+Library (?:rpath|runpath): \[(.*)\]/)
  assert rpath.find(): dynamic
  assert rpath.group(1) == 'RPATH': 'DT_RPATH, as PyTorch uses: ' + dynamic
  def entries = rpath.group(2).split(':') as List
  assert entries.every { it.startsWith('$ORIGIN') }: entries
  assert entries.containsAll(['$ORIGIN/../' + expected.folder, '$ORIGIN/../nvidia/nvshmem/lib']): entries
  assert dynamic.contains("Shared library: [${expected.soname}]") && dynamic.contains('Shared library: [libnvshmem_host.so.3]')

  def metadata = new File(unpacked, 'kd-0.3.0/kd-0.3.0.dist-info/METADATA').text
  assert metadata.contains("Requires-Dist: ${expected.runtime}\n"): metadata
  assert metadata.contains('Requires-Dist: nvidia-nvshmem-cu13>=3.4.5,<4\n'): metadata
  def run = runs[cuda == 13 ? 0 : 1]
  assert run.contains("requires ${expected.runtime} for ${expected.soname}"): run

  // A fresh venv: pip pulls the runtime wheels from --find-links by the Requires-Dist lines alone.
  def site = check.venvWith(new File(build, 'venv'), [wheel], [findLinks])
  assert new File(site, expected.folder + '/' + expected.soname).isFile(): 'pip installed the runtime the wheel requires'
  def env = new HashMap(System.getenv())
  env.remove('LD_LIBRARY_PATH')
  def python = new File(build, 'venv/bin/python').path
  def p = new ProcessBuilder(python, '-c', 'import kd; print(kd.info())').directory(build).redirectErrorStream(true)
  p.environment().clear()
  p.environment().putAll(env)
  def proc = p.start()
  def out = proc.inputStream.text
  assert proc.waitFor() == 0 && out.trim() == expected.answer: out
  def ldd = check.sh(['ldd', new File(site, 'kd/libkd.so').path], build)
  [(expected.soname): expected.folder, 'libnvshmem_host.so.3': 'nvidia/nvshmem/lib'].each { soname, folder ->
    def resolved = (ldd =~ /${java.util.regex.Pattern.quote(soname)} => (\S+)/)
    assert resolved.find(): ldd
    assert new File(resolved.group(1)).canonicalPath == new File(site, "${folder}/${soname}").canonicalPath: ldd
  }
}
true
