#include "mediagen/core/redact.hpp"

#include <vector>

#include "mediagen/core/percent.hpp"

namespace mediagen {

namespace {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_password_key_at(std::string_view text, std::size_t i) {
  constexpr std::string_view key = "password=";
  if (text.size() - i < key.size()) return false;
  for (std::size_t k = 0; k < key.size(); ++k) {
    if (lower(text[i + k]) != key[k]) return false;
  }
  // A whole key: at the start, or after a separator of either form.
  return i == 0 || text[i - 1] == ' ' || text[i - 1] == '?' || text[i - 1] == '&' || text[i - 1] == '\t';
}

// Where the secrets of a connection string are: the userinfo password, password= values.
std::vector<Span> secret_spans(std::string_view url) {
  std::vector<Span> spans;
  std::size_t search_from = 0;
  const auto scheme = url.find("://");
  // Without a scheme ("password@host"), userinfo starts the string; key/value strings (with
  // spaces before the '@') are read for their password= only.
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  if (const auto at = url.rfind('@'); at != std::string_view::npos && at >= start) {
    if (scheme != std::string_view::npos || url.substr(0, at).find(' ') == std::string_view::npos) {
      const auto colon = url.find(':', start);
      const std::size_t from = colon != std::string_view::npos && colon < at ? colon + 1 : start;
      if (at > from) spans.push_back({from, at});
      search_from = at + 1;
    }
  }
  for (std::size_t i = search_from; i < url.size(); ++i) {
    if (!is_password_key_at(url, i)) continue;
    std::size_t b = i + 9, e = b;
    if (e < url.size() && url[e] == '\'') {  // libpq quoting: up to the closing quote, \' inside
      ++e;
      while (e < url.size() && url[e] != '\'') e += url[e] == '\\' ? 2 : 1;
      e = std::min(url.size(), e + 1);
    } else {
      while (e < url.size() && url[e] != '&' && url[e] != ' ' && url[e] != '\t') ++e;
    }
    if (e > b) spans.push_back({b, e});
    i = e;
  }
  return spans;
}

void replace_all(std::string& text, std::string_view secret) {
  if (secret.empty()) return;
  for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + kRedacted.size())) {
    text.replace(at, secret.size(), kRedacted);
  }
}

}  // namespace

std::string redact_url(std::string_view url) {
  std::string out;
  std::size_t done = 0;
  for (const auto& s : secret_spans(url)) {
    out.append(url.substr(done, s.begin - done));
    out.append(kRedacted);
    done = s.end;
  }
  out.append(url.substr(done));
  return out;
}

std::string redact_secrets(std::string_view message, std::string_view url) {
  std::string out(message);
  for (const auto& s : secret_spans(url)) {
    const std::string_view raw = url.substr(s.begin, s.end - s.begin);
    replace_all(out, raw);
    replace_all(out, percent_decode(raw, /*plus_is_space=*/false));
    // libpq quotes a key/value password without its quotes.
    if (raw.size() >= 2 && raw.front() == '\'') replace_all(out, raw.substr(1, raw.size() - 2));
  }
  return out;
}

}  // namespace mediagen
