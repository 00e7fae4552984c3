// Audio intake: the type by content (libmagic), then decoding (audio_intake_decode.cpp).
#include "mediagen/engines/codec.hpp"

#include <magic.h>

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

#include "audio_intake_decode.hpp"

namespace mediagen::engines {
namespace {

// libmagic needs no more than this to name an audio container; less work on large uploads.
constexpr std::size_t kSniffBytes = 64 * 1024;

struct MagicClose {
  void operator()(magic_t m) const { magic_close(m); }
};
using MagicHandle = std::unique_ptr<std::remove_pointer_t<magic_t>, MagicClose>;

// A loaded magic database costs megabytes, so the process keeps one, loaded on first use; a
// magic_t is not safe to use from two threads at once, so a sniff holds its lock (a sniff reads
// at most kSniffBytes and takes well under a millisecond). One handle per thread would cost a
// database per blocking-pool thread, each loaded the first time that thread happened to sniff.
struct SharedMagic {
  std::mutex mutex;
  MagicHandle handle;
};

SharedMagic& shared_magic() {
  static SharedMagic* const shared = [] {
    auto* s = new SharedMagic;
    s->handle.reset(magic_open(MAGIC_MIME_TYPE | MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_CHECK_ELF | MAGIC_ERROR));
    if (s->handle && magic_load(s->handle.get(), nullptr) != 0) s->handle.reset();
    return s;
  }();
  return *shared;
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
  SharedMagic& magic = shared_magic();
  if (!magic.handle || bytes.empty()) return "application/octet-stream";
  const std::lock_guard lock(magic.mutex);
  const char* mime = magic_buffer(magic.handle.get(), bytes.data(), std::min(bytes.size(), kSniffBytes));
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
