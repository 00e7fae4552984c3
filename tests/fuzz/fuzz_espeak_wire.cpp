// The frames between the server and its speech helpers (src/engines/speech/wire/espeak_wire.cpp): what
// a broken or hostile helper could send the server, and what the helper reads from its socket.
// Input: 1 byte of piece size (1..256), then the byte stream. Properties:
//   - FrameReader gives the same frames fed in pieces as fed whole, none over kMaxPayload, and
//     reads nothing once broken;
//   - every payload a decoder accepts encodes back to the very same frame;
//   - a failure text the server keeps is printable ASCII of at most kMaxFailureText bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "mediagen/engines/speech/wire.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace mediagen::engines::detail;
using namespace mediagen::engines::detail::wire;

std::vector<Frame> read_all(std::string_view stream, std::size_t piece, bool& broken) {
  FrameReader reader;
  std::vector<Frame> frames;
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    reader.feed(stream.substr(at, piece));
    while (auto f = reader.next()) {
      FUZZ_CHECK(f->payload.size() <= kMaxPayload);
      frames.push_back(std::move(*f));
    }
  }
  broken = reader.broken();
  if (broken) FUZZ_CHECK(!reader.next().has_value());
  return frames;
}

// A list payload the decoder accepts encodes back to the very frame (an empty list to nothing).
template <class T, class Decode, class Encode>
void check_list(std::string_view payload, const std::string& whole, Decode decode, Encode encode) {
  std::vector<T> items;
  if (!decode(payload, items)) return;
  std::string again;
  encode(items, again);
  FUZZ_CHECK(again == (items.empty() ? std::string() : whole));
}

void check_frame(const Frame& f) {
  const std::string whole = frame(f.type, f.payload);
  switch (f.type) {
    case FrameType::job:
      if (const auto job = decode_job(f.payload)) FUZZ_CHECK(encode_job(*job) == whole);
      break;
    case FrameType::ready:
      if (const auto rate = decode_ready(f.payload)) FUZZ_CHECK(encode_ready(*rate) == whole);
      break;
    case FrameType::pcm:
      check_list<std::int16_t>(f.payload, whole, [](auto p, auto& v) { return decode_pcm(p, v); },
                               [](const auto& v, auto& out) { encode_pcm(v, out); });
      break;
    case FrameType::words:
      check_list<WordEvent>(f.payload, whole, [](auto p, auto& v) { return decode_words(p, v); },
                            [](const auto& v, auto& out) { encode_words(v, out); });
      break;
    case FrameType::failed: {
      const std::string why = decode_failed(f.payload);
      FUZZ_CHECK(!why.empty() && why.size() <= kMaxFailureText);
      for (char c : why) FUZZ_CHECK(c >= 0x20 && c < 0x7F);
      break;
    }
    case FrameType::done: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mediagen::fuzz::Bytes in{mediagen::fuzz::as_text(data, size)};
  const std::size_t piece = std::size_t{in.u8()} + 1;
  const std::string_view stream = in.rest;

  bool broken_whole = false, broken_pieces = false;
  const auto whole = read_all(stream, stream.size() + 1, broken_whole);
  const auto pieces = read_all(stream, piece, broken_pieces);
  FUZZ_CHECK(broken_whole == broken_pieces);
  FUZZ_CHECK(whole.size() == pieces.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    FUZZ_CHECK(whole[i].type == pieces[i].type && whole[i].payload == pieces[i].payload);
    check_frame(whole[i]);
  }
  return 0;
}
