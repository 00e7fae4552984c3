#pragma once
// The timestamped answers' framing around the converted audio (speech_stream.hpp):
//   whole   one JSON object {"audio_base64", "alignment", "normalized_alignment"}, written as the
//           audio comes (the base64 text streams; the alignment follows the audio);
//   lines   one such object per piece of audio, each on its own line ending in '\n' (ElevenLabs'
//           /stream/with-timestamps; the SDK parses each line alone). A piece carries the
//           characters that start within the audio sent so far, so every character comes once,
//           in order, and its times count from the start of the whole audio.
// normalized_alignment is the alignment: the text is spoken as written, not normalised first.
#include <memory>

#include "../speech_stream.hpp"

namespace mediagen::compat::elevenlabs {

std::shared_ptr<StreamFraming> whole_timestamps();
std::shared_ptr<StreamFraming> timestamp_lines();

}  // namespace mediagen::compat::elevenlabs
