/* Compiled by prebuild.groovy into prebuilt/, standing in for objects another build system made. */
int aiter_prebuilt_scale(int x) { return x * 3; }
