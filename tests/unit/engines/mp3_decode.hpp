#pragma once
// Test helper: decodes an MP3 held in memory with libmpg123, so tests can listen to what the
// engines write.
#include <mpg123.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::engines::testing {

struct DecodedMp3 {
  bool ok = false;
  std::string error;
  long rate = 0;
  int channels = 0;
  std::vector<std::int16_t> samples;  // interleaved when channels > 1

  std::int64_t duration_ms() const {
    if (rate == 0 || channels == 0) return 0;
    return static_cast<std::int64_t>(samples.size() / static_cast<std::size_t>(channels)) * 1000 / rate;
  }
};

inline DecodedMp3 decode_mp3(std::string_view mp3) {
  DecodedMp3 out;
  int err = MPG123_OK;
  std::unique_ptr<mpg123_handle, void (*)(mpg123_handle*)> h(mpg123_new(nullptr, &err), mpg123_delete);
  if (!h) {
    out.error = "mpg123_new failed";
    return out;
  }
  mpg123_param(h.get(), MPG123_ADD_FLAGS, MPG123_QUIET, 0);
  // Signed 16-bit output only, whatever the stream's rate and channels.
  mpg123_format_none(h.get());
  for (long rate : {8000L, 11025L, 12000L, 16000L, 22050L, 24000L, 32000L, 44100L, 48000L}) {
    mpg123_format(h.get(), rate, MPG123_MONO | MPG123_STEREO, MPG123_ENC_SIGNED_16);
  }
  if (mpg123_open_feed(h.get()) != MPG123_OK) {
    out.error = "mpg123_open_feed failed";
    return out;
  }
  std::vector<unsigned char> buffer(1 << 16);
  auto drain = [&](const unsigned char* in, std::size_t in_size) -> int {
    int rc = MPG123_OK;
    do {
      std::size_t done = 0;
      rc = mpg123_decode(h.get(), in, in_size, buffer.data(), buffer.size(), &done);
      in = nullptr;
      in_size = 0;
      if (rc == MPG123_NEW_FORMAT) {
        int encoding = 0;
        mpg123_getformat(h.get(), &out.rate, &out.channels, &encoding);
      }
      const auto* s = reinterpret_cast<const std::int16_t*>(buffer.data());
      out.samples.insert(out.samples.end(), s, s + done / sizeof(std::int16_t));
    } while (rc == MPG123_OK || rc == MPG123_NEW_FORMAT);
    return rc;
  };
  const int rc = drain(reinterpret_cast<const unsigned char*>(mp3.data()), mp3.size());
  if (rc != MPG123_NEED_MORE && rc != MPG123_DONE) {
    out.error = std::string("mpg123: ") + mpg123_plain_strerror(rc);
    return out;
  }
  out.ok = out.rate > 0 && out.channels > 0;
  if (!out.ok) out.error = "no MPEG audio frames found";
  return out;
}

inline double rms(const std::vector<std::int16_t>& samples) {
  if (samples.empty()) return 0;
  double sum = 0;
  for (auto s : samples) sum += static_cast<double>(s) * s;
  return std::sqrt(sum / static_cast<double>(samples.size()));
}

}  // namespace mediagen::engines::testing
