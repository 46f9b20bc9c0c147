// fp16 and bf16 <-> float32 by bit manipulation (round to nearest even, NaN stays NaN), and e4m3 to
// float32, so the CPU backends accept the same dtypes as the CUDA kernels without a compiler's
// _Float16 or FP8 support.
#include <cstdint>
#include <cstring>

#include "mha_internal.h"

namespace mha {
namespace {

std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Drops the low `shift` bits of `value`, rounding to nearest even.
std::uint32_t round_shift(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
}

}  // namespace

float half_to_float(unsigned short h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return float_of(sign | 0x7f800000u | (mantissa << 13));
  return float_of(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

unsigned short float_to_half(float value) {
  const std::uint32_t x = bits_of(value);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exponent = (x >> 23) & 0xff, mantissa = x & 0x7fffffu;
  if (exponent == 0xff) return static_cast<unsigned short>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<unsigned short>(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half, or zero below half its smallest step
    if (e < -10) return static_cast<unsigned short>(sign);
    return static_cast<unsigned short>(sign | round_shift(mantissa | 0x800000u, 14 - e));
  }
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  return static_cast<unsigned short>(sign | round_shift((static_cast<std::uint32_t>(e) << 23) | mantissa, 13));
}

float bf16_to_float(unsigned short bits) { return float_of(static_cast<std::uint32_t>(bits) << 16); }

unsigned short float_to_bf16(float value) {
  const std::uint32_t x = bits_of(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((x >> 16) | 0x40u);
  return static_cast<unsigned short>(round_shift(x, 16));
}

float e4m3_to_float(unsigned char bits) {
  const int exponent = (bits >> 3) & 0xf, mantissa = bits & 0x7;
  float magnitude;
  if (exponent == 0xf && mantissa == 0x7) {
    magnitude = float_of(0x7fc00000u);  // NaN
  } else if (exponent == 0) {  // subnormal: mantissa * 2^-9
    magnitude = static_cast<float>(mantissa) * 0.001953125f;
  } else {
    magnitude = float_of(static_cast<std::uint32_t>(exponent - 7 + 127) << 23 | static_cast<std::uint32_t>(mantissa) << 20);
  }
  return bits & 0x80 ? -magnitude : magnitude;
}

}  // namespace mha
