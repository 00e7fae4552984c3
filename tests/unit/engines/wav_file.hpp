#pragma once
// Test helper: 16-bit mono PCM as the WAV file a client would upload.
#include <cstdint>
#include <span>
#include <string>

#include "mediagen/engines/speech.hpp"

namespace mediagen::engines::testing {

inline std::string wav_file(std::span<const std::int16_t> samples, int sample_rate) {
  const auto put = [](std::string& out, std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  const auto data = static_cast<std::uint32_t>(samples.size() * 2);
  const auto rate = static_cast<std::uint32_t>(sample_rate);
  std::string out = "RIFF";
  put(out, 36 + data, 4);
  out += "WAVEfmt ";
  put(out, 16, 4), put(out, 1, 2), put(out, 1, 2), put(out, rate, 4), put(out, rate * 2, 4), put(out, 2, 2);
  put(out, 16, 2);
  out += "data";
  put(out, data, 4);
  out.append(reinterpret_cast<const char*>(samples.data()), data);
  return out;
}

inline std::string wav_file(const SpeechPcm& pcm) { return wav_file(pcm.samples, pcm.sample_rate); }

}  // namespace mediagen::engines::testing
