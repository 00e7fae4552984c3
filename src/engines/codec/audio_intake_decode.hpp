#pragma once
// FFmpeg half of audio intake: demux from memory, decode the first audio stream, resample to
// analysis PCM. Called by read_audio after the content type was accepted.
#include <string_view>

#include <boost/system/result.hpp>

#include "mediagen/engines/codec.hpp"

namespace mediagen::engines::intake {

boost::system::result<AnalysisAudio, IntakeRefusal> decode(std::string_view bytes, const IntakeLimits& limits);

}  // namespace mediagen::engines::intake
