#include "fanout_signature.hpp"

namespace mediagen::realtime {

std::string fanout_key(std::string_view secret) { return derive_key(secret, kFanoutKeyLabel); }

}  // namespace mediagen::realtime
