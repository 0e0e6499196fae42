// Tiny media the example servers return: a 1x1 PNG and a short WAV of silence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace examples {

/// A 1x1 PNG, base64-encoded.
inline constexpr std::string_view png_base64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg"
    "==";

/// A short WAV file of silence (8 kHz, 8-bit mono, 8 samples).
inline std::string tiny_wav() {
  std::string w = "RIFF";
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) w.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
  };
  auto u16 = [&](std::uint16_t v) {
    w.push_back(static_cast<char>(v & 0xFFU));
    w.push_back(static_cast<char>(v >> 8U));
  };
  u32(36 + 8);
  w += "WAVEfmt ";
  u32(16);
  u16(1);     // PCM
  u16(1);     // mono
  u32(8000);  // sample rate
  u32(8000);  // byte rate
  u16(1);     // block align
  u16(8);     // bits per sample
  w += "data";
  u32(8);
  w.append(8, static_cast<char>(0x80));
  return w;
}

/// The bytes of a string, for the content helpers.
inline std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

}  // namespace examples
