#include "mediagen/app/database.hpp"

#include "invalidation.hpp"

namespace mediagen::app {

Database::Database(const Config& config) : db_(config.database_url, &counters_) {
  db_.set_commit_listener([config](const std::vector<std::int64_t>& users) {
    for (const auto user : users) publish_invalidation(config, ProfileOf{UserId{user}});
  });
}

}  // namespace mediagen::app
