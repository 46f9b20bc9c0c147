def check = evaluate(new File(itLib, 'checks.groovy'))
def lib = { String module, String name -> new File(basedir, "${module}/target/kernel/lib${name}.so").path }
def cc = { String output, List<String> args ->
  def exe = new File(basedir, "target/${output}")
  exe.parentFile.mkdirs()
  check.sh(['cc', '-o', exe.path] + args, basedir)
  exe.path
}
def loadBoth = cc('load-both', [new File(itLib, 'load-both.c').path, '-ldl'])
def load = { String first, String firstSymbol, String second, String secondSymbol ->
  check.sh([loadBoth, first, firstSymbol, second, secondSymbol], basedir).trim()
}
def kv1 = lib('kv-1', 'kv'), kv2 = lib('kv-2', 'kv'), fw = lib('bundled', 'fw')

// Two builds of one C library, loaded RTLD_GLOBAL in both orders: API->API and archive->API calls
// stay in their own library (v2 used to answer 110: v1's kv_version, reached through either call).
assert load(kv1, 'kv_report', kv2, 'kv_report') == 'kv_report=110 kv_report=220'
assert load(kv2, 'kv_report', kv1, 'kv_report') == 'kv_report=220 kv_report=110'
// The same in C++: templates, std::map/std::string and an exception caught inside the archive.
def kvpp1 = lib('kvpp-1', 'kvpp'), kvpp2 = lib('kvpp-2', 'kvpp')
assert load(kvpp1, '_ZN4kvpp6reportEv', kvpp2, '_ZN4kvpp6reportEv') == '_ZN4kvpp6reportEv=110 _ZN4kvpp6reportEv=220'
assert load(kvpp2, '_ZN4kvpp6reportEv', kvpp1, '_ZN4kvpp6reportEv') == '_ZN4kvpp6reportEv=220 _ZN4kvpp6reportEv=110'

// Each export carries its ABI's version node (default <LIBRARY>_<major version>), listed in audit.txt.
def audit = new File(basedir, 'kv-2/target/kernel/audit.txt').text
assert audit.contains('exports 2\n  kv_report@@KV_2\n  kv_version@@KV_2\n'): audit
assert new File(basedir, 'kvpp-1/target/kernel/audit.txt').text.contains('  _ZN4kvpp6reportEv@@KVPP_1\n')
def dynamic = check.sh(['readelf', '--dyn-syms', '--wide', fw], basedir)
assert dynamic.contains('kv_report@@KV_1.0'): 'kernel.symbolVersion overrides the node'

// A program linked against one build that dlopens the other first still calls its own build.
def app2 = cc('app-2', [new File(basedir, 'app.c').path, "-L${basedir}/kv-2/target/kernel".toString(), '-lkv',
    "-Wl,-rpath,${basedir}/kv-2/target/kernel".toString(), '-ldl'])
def app1 = cc('app-1', [new File(basedir, 'app.c').path, "-L${basedir}/kv-1/target/kernel".toString(), '-lkv',
    "-Wl,-rpath,${basedir}/kv-1/target/kernel".toString(), '-ldl'])
assert check.sh([app2, kv1], basedir).trim() == 'linked=220 other=110'
assert check.sh([app1, kv2], basedir).trim() == 'linked=110 other=220'

// A framework that bundles kv 1.0 under its own name, loaded ahead of everything (LD_PRELOAD): the
// program linked against kv 2.0 binds kv_report@KV_2 past the framework's kv_report@KV_1.0.
assert check.sh([app2], basedir, [LD_PRELOAD: fw]).trim() == 'linked=220'
// ... and so does a plugin linked against kv 2.0 that a host loads after the framework (RTLD_GLOBAL).
def extension = new File(basedir, 'target/libextension.so').path
check.sh(['cc', '-shared', '-fPIC', '-o', extension, new File(basedir, 'extension.c').path,
    "-L${basedir}/kv-2/target/kernel".toString(), '-lkv', "-Wl,-rpath,${basedir}/kv-2/target/kernel".toString()], basedir)
assert load(fw, 'kv_report', extension, 'extension_answer') == 'kv_report=110 extension_answer=220'

// The same file name and SONAME preloaded: the loader takes it for the library the program needs, and the
// version node turns what was a silent wrong call into a load error naming the missing version.
def preloaded = new ProcessBuilder([app2]).directory(basedir).redirectErrorStream(true)
preloaded.environment().put('LD_PRELOAD', kv1)
def process = preloaded.start()
def output = process.inputStream.getText('UTF-8')
assert process.waitFor() != 0 && output.contains("version `KV_2' not found"): output

// Two programs, each linked against one build, run side by side.
def side = [app1, app2].collect { new ProcessBuilder([it]).redirectErrorStream(true).start() }
assert side.collect { it.inputStream.getText('UTF-8').trim() } == ['linked=110', 'linked=220']
assert side.every { it.waitFor() == 0 }
true
