#pragma once
// What a worker decides about a chunk's text before any engine sees it.
//
//   policy terms  the operator's content policy: a chunk containing one of the terms as a whole
//                 word or phrase (ASCII letters compared case-insensitively; a term's ends must
//                 not touch a letter, digit or any non-ASCII character) is policy_flagged
//                 "content_policy" without being synthesised;
//   fail marker   an operator fault drill: a chunk whose text contains the marker (exact bytes)
//                 fails technically with "engine_error", as if the engine had failed.
// Pure function; no I/O.
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::workers {

struct ContentRules {
  std::vector<std::string> policy_terms;  // empty terms are ignored
  std::string fail_marker;                // "": no drill
};

enum class ContentVerdict { ok, policy_flagged, fault_drill };

ContentVerdict check_content(std::string_view text, const ContentRules& rules);

// True when `term` occurs in `text` as a whole word or phrase, ASCII case-insensitively.
bool contains_term(std::string_view text, std::string_view term);

}  // namespace mediagen::workers
