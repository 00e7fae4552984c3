#include <utility>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines {

boost::system::result<Audio, EngineFailure> finish_chunk(SpeechPcm pcm, const FinishOptions& options) {
  apply_gain(pcm.samples, normalization_gain_db(pcm.samples, pcm.sample_rate, options));
  apply_fades(pcm.samples, pcm.sample_rate, options.fade_in_ms, options.fade_out_ms);
  auto mp3 = encode_mp3(pcm.samples, pcm.sample_rate, options.mp3);
  if (!mp3) return mp3.error();

  Audio audio;
  audio.mp3 = std::move(mp3->bytes);
  audio.sample_rate = mp3->sample_rate;
  audio.duration_ms = mp3->duration_ms;
  audio.words = std::move(pcm.words);
  audio.words_estimated = pcm.words_estimated;
  for (auto& w : audio.words) w.start_ms += mp3->delay_ms;
  return audio;
}

}  // namespace mediagen::engines
