#include "mediagen/engines/music.hpp"

#include <algorithm>
#include <exception>

#include "music_composer.hpp"
#include "music_master.hpp"
#include "music_synth.hpp"
#include "music_styles.hpp"
#include "mediagen/engines/audio.hpp"

namespace mediagen::engines {
namespace {

constexpr Mp3Options kMusicMp3{.bitrate_kbps = 128, .quality = 5};

}  // namespace

struct MusicEngine::State {
  explicit State(std::string path) : soundfont(std::move(path)) {}
  music::SoundfontShare soundfont;
};

MusicEngine::MusicEngine(std::string soundfont_path) : state_(std::make_unique<State>(std::move(soundfont_path))) {}
MusicEngine::~MusicEngine() = default;

boost::system::result<void, EngineFailure> MusicEngine::preload() {
  try {
    return state_->soundfont.load();
  } catch (const std::exception& e) {
    return EngineFailure::technical(std::string("music: ") + e.what());
  }
}

boost::system::result<Audio, EngineFailure> MusicEngine::generate(const PromptRequest& request) {
  const std::int64_t duration_ms = request.duration_ms.value_or(kMusicDefaultDurationMs);
  if (duration_ms < kMusicMinDurationMs || duration_ms > kMusicMaxDurationMs) {
    return EngineFailure::technical("music: duration " + std::to_string(duration_ms) + " ms is outside " +
                                    std::to_string(kMusicMinDurationMs) + ".." + std::to_string(kMusicMaxDurationMs));
  }
  try {
    auto synth = state_->soundfont.synth();
    if (!synth) return synth.error();
    const std::int64_t frames = music::pcm_frames_for(duration_ms);
    const auto score = music::compose(music::arrange(request.prompt), frames, request.seed);

    auto encoder = Mp3Encoder::create(2, music::kSampleRate, kMusicMp3);
    if (!encoder) return encoder.error();
    std::optional<EngineFailure> encode_failure;
    music::MasterOptions options{
        .total_frames = frames,
        .fade_in_frames = music::kSampleRate / 200,  // 5 ms: no click on the first note
        .fade_out_frames = std::clamp<std::int64_t>(frames / 10, music::kSampleRate / 2, 3 * music::kSampleRate)};
    music::MasterBus bus(options, [&](std::span<const std::int16_t> pcm) {
      auto written = encoder->write(pcm);
      if (!written) encode_failure = written.error();
      return written.has_value();
    });
    if (auto rendered = music::render(synth->get(), score, frames, bus); !rendered) {
      return encode_failure ? *encode_failure : rendered.error();
    }
    auto stream = encoder->finish();
    if (!stream) return stream.error();
    return Audio{std::move(stream->bytes), stream->sample_rate, stream->duration_ms, {}};
  } catch (const std::exception& e) {
    return EngineFailure::technical(std::string("music: ") + e.what());
  }
}

}  // namespace mediagen::engines
