// Stand-ins for NVIDIA's wheels (no network here): the CUDA 13 and CUDA 12 runtime and NVSHMEM,
// each installed into a virtualenv that the library is then built against. Their versions are no real
// release's, so an answer from a system CUDA runtime would not pass for theirs.
import java.nio.file.Files

def check = evaluate(new File(itLib, 'checks.groovy'))
def target = new File(basedir, 'target')
def wheels = new File(target, 'stand-in-wheels')
def work = new File(target, 'stand-ins')
work.mkdirs()
def cudart13 = check.standInWheel(work, wheels, 'nvidia-cuda-runtime', '13.0.96', 'nvidia/cu13/lib', 'libcudart.so.13',
    'int cudaRuntimeGetVersion(int *v) { *v = 13096; return 0; }\n')
def cudart12 = check.standInWheel(work, wheels, 'nvidia-cuda-runtime-cu12', '12.9.79', 'nvidia/cuda_runtime/lib',
    'libcudart.so.12', 'int cudaRuntimeGetVersion(int *v) { *v = 12079; return 0; }\n')
def nvshmem = check.standInWheel(work, wheels, 'nvidia-nvshmem-cu13', '3.4.5', 'nvidia/nvshmem/lib', 'libnvshmem_host.so.3',
    'int nvshmem_my_pe(void) { return 7; }\n')
// Outside the project, as a user's environment is (the audit refuses an RPATH into the project).
def venvs = new File(basedir.parentFile, 'wheel-cuda-deps-venvs')
venvs.mkdirs()
[13: [cudart13, nvshmem], 12: [cudart12, nvshmem]].each { cuda, installed ->
  def site = check.venvWith(new File(venvs, "build-venv-${cuda}"), installed)
  Files.createSymbolicLink(new File(venvs, "site-packages-${cuda}").toPath(), site.toPath())
}
true
