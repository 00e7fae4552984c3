#pragma once
// Choosing the espeak-ng voice of a request (internal; the rules are in espeak_engine.hpp).
#include <string>
#include <string_view>
#include <vector>

#include <boost/system/result.hpp>

#include "mediagen/engines/audio.hpp"
#include "mediagen/engines/speech.hpp"

namespace mediagen::engines::detail {

// The argument for espeak_SetVoiceByName: "<voice identifier>" or "<voice identifier>+<variant key>".
boost::system::result<std::string, EngineFailure> resolve_voice(const std::vector<EspeakVoiceInfo>& voices,
                                                                const std::vector<EspeakVariantInfo>& variants,
                                                                std::string_view espeak_voice,
                                                                std::string_view variant,
                                                                std::string_view language_code);

}  // namespace mediagen::engines::detail
