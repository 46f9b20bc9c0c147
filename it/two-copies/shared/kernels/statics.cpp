// C++ statics that the toolchain merges across a process unless they are kept private:
// an inline function's static (STB_GNU_UNIQUE) and a template's static data member (weak).
inline int &calls() {
  static int n = 0;
  return n;
}
template <int N> struct Tag { static int value; };
template <int N> int Tag<N>::value = N + VARIANT;

extern "C" int kernel_statics(void) { return (++calls() > 0 ? 1 : 0) * Tag<0>::value * 10; }
