#pragma once
// A device function other libraries' kernels may call (with relocatable device code).
extern __device__ int dep_twice(int x);
