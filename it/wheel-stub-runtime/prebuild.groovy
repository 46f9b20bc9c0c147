// Stand-ins for the CUDA 13 and CUDA 12 runtime wheels: each defines what the library's stub looks
// up (the fat binary registration nvcc's host code calls at load, and cudaRuntimeGetVersion), with
// versions no real release has.
def check = evaluate(new File(itLib, 'checks.groovy'))
def target = new File(basedir, 'target')
def work = new File(target, 'stand-ins')
work.mkdirs()
def runtime = { int version -> """
static void *handle[1];
void **__cudaRegisterFatBinary(void *fatbin) { return handle; }
void __cudaRegisterFatBinaryEnd(void **h) {}
void __cudaUnregisterFatBinary(void **h) {}
char __cudaInitModule(void **h) { return 0; }
int cudaRuntimeGetVersion(int *v) { *v = ${version}; return 0; }
""" }
def wheels = new File(target, 'stand-in-wheels')
check.standInWheel(work, wheels, 'nvidia-cuda-runtime', '13.0.96', 'nvidia/cu13/lib', 'libcudart.so.13', runtime(13096))
check.standInWheel(work, wheels, 'nvidia-cuda-runtime-cu12', '12.9.79', 'nvidia/cuda_runtime/lib', 'libcudart.so.12',
    runtime(12079))
true
