// Defined here, called from scale.cu: needs relocatable device code and a device link.
__device__ int twice(int x) { return 2 * x; }
