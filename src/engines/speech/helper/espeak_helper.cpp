// mediagen-espeak: one espeak-ng state in its own process. The server starts one per speech job
// it runs at once (libespeak-ng keeps global state, so a process speaks one text at a time) and
// talks to it over a socket pair on stdin and stdout, in the frames of mediagen/engines/speech/wire.hpp. The
// helper speaks jobs until its input ends, and exits on a frame it does not expect: the server
// restarts it. Its audio goes out as espeak-ng makes it, in frames of at most 1 MiB.
#include <espeak-ng/speak_lib.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "mediagen/engines/speech/wire.hpp"

namespace wire = mediagen::engines::detail::wire;

namespace {

// The server is gone (or the socket broke): nothing is left to do. _exit skips the exit-time
// leak report of sanitized builds, which would only repeat espeak-ng's own allocations.
[[noreturn]] void leave(int status) { _exit(status); }

void write_all(const std::string& bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) leave(0);
    at += static_cast<std::size_t>(n);
  }
}

struct Current {
  std::size_t samples = 0;
  std::size_t max_samples = 0;
  bool overflow = false;
};
Current current;

// Called from espeak-ng's C code: no exception may leave it. Returning 1 stops synthesis.
int on_synth(short* wav, int samples, espeak_EVENT* events) noexcept {
  try {
    std::string out;
    if (wav != nullptr && samples > 0) {
      if (current.samples + static_cast<std::size_t>(samples) > current.max_samples) {
        current.overflow = true;
        return 1;
      }
      current.samples += static_cast<std::size_t>(samples);
      wire::encode_pcm({reinterpret_cast<const std::int16_t*>(wav), static_cast<std::size_t>(samples)}, out);
    }
    std::vector<wire::WordEvent> words;
    for (auto* e = events; e != nullptr && e->type != espeakEVENT_LIST_TERMINATED; ++e) {
      if (e->type == espeakEVENT_WORD) words.push_back({e->text_position, e->length, e->audio_position});
    }
    wire::encode_words(words, out);
    write_all(out);
  } catch (...) {  // bad_alloc
    leave(3);
  }
  return 0;
}

std::string speak(const wire::Job& job, std::string& voice, int sample_rate) {
  if (job.voice != voice) {
    voice.clear();
    if (espeak_SetVoiceByName(job.voice.c_str()) != EE_OK) {
      return wire::encode_failed("espeak-ng could not load voice '" + job.voice.substr(0, 100) + "'");
    }
    voice = job.voice;
  }
  // Every parameter is set for every job: they are global and outlive the previous job.
  espeak_SetParameter(espeakRATE, job.parameters.rate_wpm, 0);
  espeak_SetParameter(espeakPITCH, job.parameters.pitch, 0);
  espeak_SetParameter(espeakRANGE, job.parameters.pitch_range, 0);
  espeak_SetParameter(espeakVOLUME, job.parameters.volume, 0);
  current = Current{0, wire::kMaxSpeechSeconds * static_cast<std::size_t>(sample_rate), false};
  // No espeakSSML and no espeakPHONEMES: the text is spoken as written, nothing is markup.
  const auto status = espeak_Synth(job.text.c_str(), job.text.size() + 1, 0, POS_CHARACTER, 0,
                                   espeakCHARS_UTF8 | espeakENDPAUSE, nullptr, nullptr);
  if (current.overflow) return wire::encode_failed("speech longer than 30 minutes: synthesis stopped");
  if (status != EE_OK) return wire::encode_failed("espeak-ng synthesis failed (" + std::to_string(status) + ")");
  return wire::frame(wire::FrameType::done, {});
}

}  // namespace

int main() {
  // Ctrl-C in a terminal reaches the whole process group: the server shuts down and closes the
  // socket, which ends the helper after its job. Broken pipes are write errors, not signals.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);

  // Synchronous retrieval: espeak_Synth returns when the text is spoken, calling on_synth with
  // the audio as it goes. DONT_EXIT: report missing data instead of exit().
  const int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT);
  if (rate <= 0) {
    write_all(wire::encode_failed("espeak-ng could not start (data files missing?)"));
    leave(1);
  }
  espeak_SetSynthCallback(&on_synth);
  write_all(wire::encode_ready(rate));

  wire::FrameReader reader;
  std::string voice;
  std::string buffer(64 * 1024, '\0');
  for (;;) {
    while (auto frame = reader.next()) {
      if (frame->type != wire::FrameType::job) leave(2);
      const auto job = wire::decode_job(frame->payload);
      if (!job) leave(2);
      write_all(speak(*job, voice, rate));
    }
    if (reader.broken()) leave(2);
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) leave(0);
    reader.feed({buffer.data(), static_cast<std::size_t>(n)});
  }
}
