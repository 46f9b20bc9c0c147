// The "vendor" toolchain: compilers that log each call, then run Debian's cross compilers, and a sysroot
// of its own (Debian's aarch64 C library, linked in) holding a marker file the aarch64 test program reads
// under qemu, where -L makes <sysroot>/vendor-marker answer for /vendor-marker.
def tools = new File(basedir, 'tools')
tools.mkdirs()
def wrap = { String name, String real ->
  def script = new File(tools, name)
  script.text = "#!/bin/sh\necho \"${name} \$*\" >> '${new File(basedir, 'tools.log').path}'\nexec ${real} \"\$@\"\n"
  script.setExecutable(true)
}
wrap('vendor-gcc', 'aarch64-linux-gnu-gcc')
wrap('vendor-g++', 'aarch64-linux-gnu-g++')
wrap('host-g++', 'g++')
def sysroot = new File(basedir, 'vendor-sysroot')
sysroot.mkdirs()
def p = ['ln', '-s', '/usr/aarch64-linux-gnu/lib', new File(sysroot, 'lib').path].execute()
p.waitForProcessOutput(System.out, System.err)
assert p.exitValue() == 0
new File(sysroot, 'vendor-marker').text = 'vendor sysroot\n'
true
