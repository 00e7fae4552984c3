#pragma once
// Which storage paths a user may get a download link for (spec 4.3): the result files and
// service files of their own orders, and the audio of their own orders' items. Every other
// path is 404, whether or not it exists.
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

// Blocking SQL. The first link to a path of result.files moves a completed order to
// result_delivered (spec 3.1), in the same transaction as the check.
Result<void> authorize_download(db::Db& db, UserId user, std::string_view path);

}  // namespace mediagen::orders
