// Audio intake: the type by content (libmagic), then decoding (audio_intake_decode.cpp).
#include "mediagen/engines/audio_intake.hpp"

#include <magic.h>

#include <algorithm>
#include <array>
#include <memory>

#include "audio_intake_decode.hpp"

namespace mediagen::engines {
namespace {

// libmagic needs no more than this to name an audio container; less work on large uploads.
constexpr std::size_t kSniffBytes = 64 * 1024;

struct MagicClose {
  void operator()(magic_t m) const { magic_close(m); }
};
using MagicHandle = std::unique_ptr<std::remove_pointer_t<magic_t>, MagicClose>;

// A magic_t is not safe to share between threads, and magic_load parses the database (costly),
// so each thread loads one handle once and keeps it.
magic_t thread_magic() {
  thread_local MagicHandle handle = [] {
    MagicHandle h{magic_open(MAGIC_MIME_TYPE | MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_CHECK_ELF | MAGIC_ERROR)};
    if (h && magic_load(h.get(), nullptr) != 0) h.reset();
    return h;
  }();
  return handle.get();
}

// What libmagic 5.x calls the containers read_audio decodes (several names per container, as
// the database has grown over versions).
constexpr std::array kAcceptedMime = {
    std::string_view{"audio/x-wav"}, std::string_view{"audio/wav"},     std::string_view{"audio/vnd.wave"},
    std::string_view{"audio/mpeg"},  std::string_view{"audio/ogg"},     std::string_view{"application/ogg"},
    std::string_view{"audio/flac"},  std::string_view{"audio/x-flac"},  std::string_view{"audio/mp4"},
    std::string_view{"audio/x-m4a"}, std::string_view{"video/mp4"},     std::string_view{"audio/aac"},
    std::string_view{"audio/x-hx-aac-adts"}, std::string_view{"audio/webm"}, std::string_view{"video/webm"},
    std::string_view{"audio/x-matroska"},    std::string_view{"video/x-matroska"},
};

}  // namespace

std::string_view to_string(IntakeRefusalKind kind) {
  switch (kind) {
    case IntakeRefusalKind::unsupported: return "unsupported";
    case IntakeRefusalKind::empty: return "empty";
  }
  return "unsupported";
}

std::string sniff_mime_type(std::string_view bytes) {
  magic_t m = thread_magic();
  if (m == nullptr || bytes.empty()) return "application/octet-stream";
  const char* mime = magic_buffer(m, bytes.data(), std::min(bytes.size(), kSniffBytes));
  return mime != nullptr ? std::string{mime} : std::string{"application/octet-stream"};
}

bool is_accepted_mime_type(std::string_view mime) {
  return std::find(kAcceptedMime.begin(), kAcceptedMime.end(), mime) != kAcceptedMime.end();
}

std::optional<IntakeRefusal> check_upload(std::string_view bytes) {
  const IntakeLimits probe{.max_seconds = 1, .max_decode_time = std::chrono::milliseconds(2000)};
  auto audio = read_audio(bytes, probe);
  if (!audio) return audio.error();
  return std::nullopt;
}

boost::system::result<AnalysisAudio, IntakeRefusal> read_audio(std::string_view bytes, const IntakeLimits& limits) {
  if (bytes.empty()) return IntakeRefusal::empty("the file is empty");
  if (bytes.size() > limits.max_input_bytes) {
    return IntakeRefusal::unsupported("the file is larger than " + std::to_string(limits.max_input_bytes) + " bytes");
  }
  const std::string mime = sniff_mime_type(bytes);
  if (!is_accepted_mime_type(mime)) return IntakeRefusal::unsupported("content is " + mime + ", not accepted audio");
  auto audio = intake::decode(bytes, limits);
  if (!audio) return audio.error();
  if (audio->format == "webm" && mime.find("webm") == std::string::npos) audio->format = "matroska";
  return audio;
}

}  // namespace mediagen::engines
