#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/request.hpp"
#include "mediagen/orders/preview.hpp"

namespace mediagen::orders {

// The plan settings of a preview request: from the caller's template for tts (403
// template_access_denied for another account's, 404 for none, 422 template_model_outdated when
// it no longer passes the service's schema), from the task type and `generative` (the files'
// length and count, the default read from the prompt `text`) for sfx and music.
Result<PreviewSettings> resolve_preview_settings(db::Db& db, UserId user, const std::optional<TemplateId>& template_id,
                                                 TaskType task_type, GenerationMode mode,
                                                 const GenerativeParams& generative = {}, std::string_view text = {});

}  // namespace mediagen::orders
