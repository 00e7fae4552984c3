#pragma once
// POST /orders sent as multipart/form-data (voice_search's upload; CONTRACTS: input_files[]).
// The form's fields become the JSON body the JSON route reads, so every rule is checked once:
//   task_type, template_id, input_text, quote_token    strings;
//   task_data, config_override                          a JSON object's text;
//   task_data[KEY], config_override[KEY]                one member each (after the object's
//                                                       text, which they override); a value
//                                                       that reads as a JSON number is that
//                                                       number ("5"), true/false are booleans,
//                                                       anything else stays a string ("abc");
//   confirm_payg_topup                                  "true"/"1" or "false"/"0";
//   input_files[] (or input_files)                      the files, whatever their part headers.
// The first part of a repeated field name counts; unknown fields are ignored, as unknown JSON
// members are. A field that is not UTF-8, or an object field that is not a JSON object, is a 422
// on that field.
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mediagen/core/api_error.hpp"
#include "mediagen/http/multipart.hpp"

namespace mediagen::orders {

struct OrderForm {
  nlohmann::json body = nlohmann::json::object();
  std::vector<std::string_view> files;  // into the form's parts, in body order
};

Result<OrderForm> read_order_form(const http::MultipartForm& form);

}  // namespace mediagen::orders
