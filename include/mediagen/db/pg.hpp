#pragma once
// For stores and the migration runner only: libpqxx stays out of every other header.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pqxx/pqxx>

#include "mediagen/core/counters.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/db/transact.hpp"

namespace mediagen::db {

namespace detail {
struct Connection {
  explicit Connection(const std::string& url) : pq(url) {}
  pqxx::connection pq;
};
}  // namespace detail

template <class... Args>
pqxx::result Db::exec(Tx& tx, const Statement& st, Args&&... args) {
  if (prepared_.insert(st.name).second) conn_->pq.prepare(st.name, st.sql);
  count();
  return tx.exec_prepared(st.name, std::forward<Args>(args)...);
}

// A PostgreSQL text[] literal ({"a","b"}) for a parameter cast to text[].
inline std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

}  // namespace mediagen::db
