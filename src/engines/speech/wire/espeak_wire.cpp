#include "mediagen/engines/speech/wire.hpp"

#include <algorithm>

namespace mediagen::engines::detail::wire {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint64_t get_le(std::string_view bytes, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i) v |= std::uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

bool known(std::uint8_t type) {
  switch (static_cast<FrameType>(type)) {
    case FrameType::job:
    case FrameType::ready:
    case FrameType::pcm:
    case FrameType::words:
    case FrameType::done:
    case FrameType::failed: return true;
  }
  return false;
}

void put_header(std::string& out, FrameType type, std::size_t length) {
  out.push_back(static_cast<char>(type));
  put_u32(out, static_cast<std::uint32_t>(length));
}

constexpr std::size_t kWordSize = 16;

}  // namespace

std::optional<Frame> FrameReader::next() {
  if (broken_ || buffered() < kHeaderSize) return std::nullopt;
  const std::string_view rest = std::string_view(buffer_).substr(start_);
  const auto type = static_cast<std::uint8_t>(rest[0]);
  const auto length = static_cast<std::uint32_t>(get_le(rest, 1, 4));
  if (!known(type) || length > kMaxPayload) {
    broken_ = true;
    buffer_.clear();
    start_ = 0;
    return std::nullopt;
  }
  if (rest.size() < kHeaderSize + length) return std::nullopt;
  Frame out{static_cast<FrameType>(type), std::string(rest.substr(kHeaderSize, length))};
  start_ += kHeaderSize + length;
  // Drop what was read once it is most of the buffer, so the buffer stays about one frame long.
  if (start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  return out;
}

std::string frame(FrameType type, std::string_view payload) {
  std::string out;
  out.reserve(kHeaderSize + payload.size());
  put_header(out, type, payload.size());
  out.append(payload);
  return out;
}

std::string encode_job(const Job& job) {
  std::string payload;
  for (int v : {job.parameters.rate_wpm, job.parameters.pitch, job.parameters.pitch_range, job.parameters.volume}) {
    put_u32(payload, static_cast<std::uint32_t>(v));
  }
  put_u32(payload, static_cast<std::uint32_t>(job.voice.size()));
  payload += job.voice;
  payload += job.text;
  return frame(FrameType::job, payload);
}

std::optional<Job> decode_job(std::string_view payload) {
  if (payload.size() < 20) return std::nullopt;
  Job job;
  const auto field = [&](std::size_t at) { return static_cast<std::int32_t>(get_le(payload, at, 4)); };
  job.parameters = {field(0), field(4), field(8), field(12)};
  const std::uint64_t voice_size = get_le(payload, 16, 4);
  if (voice_size > payload.size() - 20) return std::nullopt;
  job.voice = std::string(payload.substr(20, voice_size));
  job.text = std::string(payload.substr(20 + voice_size));
  // espeak-ng reads both as C strings.
  if (job.voice.find('\0') != std::string::npos || job.text.find('\0') != std::string::npos) return std::nullopt;
  return job;
}

std::string encode_ready(int sample_rate) {
  std::string payload;
  put_u32(payload, static_cast<std::uint32_t>(sample_rate));
  return frame(FrameType::ready, payload);
}

std::optional<int> decode_ready(std::string_view payload) {
  if (payload.size() != 4) return std::nullopt;
  const auto rate = get_le(payload, 0, 4);
  if (rate < 8'000 || rate > 192'000) return std::nullopt;
  return static_cast<int>(rate);
}

void encode_pcm(std::span<const std::int16_t> samples, std::string& out) {
  constexpr std::size_t kPerFrame = kMaxPayload / 2;
  for (std::size_t at = 0; at < samples.size(); at += kPerFrame) {
    const std::size_t n = std::min(kPerFrame, samples.size() - at);
    put_header(out, FrameType::pcm, n * 2);
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::uint16_t>(samples[at + i]);
      out.push_back(static_cast<char>(v & 0xFF));
      out.push_back(static_cast<char>(v >> 8));
    }
  }
}

bool decode_pcm(std::string_view payload, std::vector<std::int16_t>& out) {
  if (payload.size() % 2 != 0) return false;
  const std::size_t first = out.size();
  out.resize(first + payload.size() / 2);
  for (std::size_t i = 0; i < payload.size() / 2; ++i) {
    out[first + i] = static_cast<std::int16_t>(static_cast<std::uint16_t>(get_le(payload, 2 * i, 2)));
  }
  return true;
}

void encode_words(std::span<const WordEvent> words, std::string& out) {
  constexpr std::size_t kPerFrame = kMaxPayload / kWordSize;
  for (std::size_t at = 0; at < words.size(); at += kPerFrame) {
    const std::size_t n = std::min(kPerFrame, words.size() - at);
    put_header(out, FrameType::words, n * kWordSize);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& w = words[at + i];
      put_u32(out, static_cast<std::uint32_t>(w.text_position));
      put_u32(out, static_cast<std::uint32_t>(w.length));
      put_u64(out, static_cast<std::uint64_t>(w.audio_ms));
    }
  }
}

bool decode_words(std::string_view payload, std::vector<WordEvent>& out) {
  if (payload.size() % kWordSize != 0) return false;
  for (std::size_t at = 0; at < payload.size(); at += kWordSize) {
    out.push_back({static_cast<std::int32_t>(get_le(payload, at, 4)), static_cast<std::int32_t>(get_le(payload, at + 4, 4)),
                   static_cast<std::int64_t>(get_le(payload, at + 8, 8))});
  }
  return true;
}

std::string encode_failed(std::string_view why) {
  return frame(FrameType::failed, why.substr(0, kMaxFailureText));
}

std::string decode_failed(std::string_view payload) {
  const bool printable = !payload.empty() && payload.size() <= kMaxFailureText &&
                         std::all_of(payload.begin(), payload.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
  return printable ? std::string(payload) : std::string("the speech helper failed");
}

}  // namespace mediagen::engines::detail::wire
