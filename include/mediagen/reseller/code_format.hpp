#pragma once
// The gift code itself: `LUM-XXXX-XXXX-XXXX`, twelve characters of an alphabet without the look-
// alikes 0/O and 1/I (32 symbols, 60 random bits), its masked form `LUM-****-****-XXXX` (safe to
// log), its lookup hash, and the sealed form kept in the database (AES-256-GCM under a key
// derived from MEDIAGEN_SECRET). The full code is a secret: it is never logged.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mediagen::reseller {

inline constexpr std::string_view kCodeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
inline constexpr std::size_t kCodeLength = 18;  // "LUM-" + 3 groups of 4 with dashes

// A fresh code from the system's cryptographic random source.
std::string make_gift_code();
// "LUM-****-****-" and the last four characters of a well-formed code.
std::string mask_gift_code(std::string_view code);
// The canonical code of what a person typed: surrounding blanks dropped, letters uppercased;
// nullopt unless it then has exactly the code's shape and alphabet.
std::optional<std::string> parse_gift_code(std::string_view text);
// sha256 of the canonical code, 64 lowercase hex digits: how a code is found.
std::string gift_code_hash(std::string_view code);

// Seals and opens full codes. The key is HMAC-SHA256(secret, "mediagen gift codes"); every
// instance sharing MEDIAGEN_SECRET reads every code.
class CodeCipher {
 public:
  explicit CodeCipher(std::string_view secret);
  // hex(nonce || ciphertext || tag), a fresh 96-bit nonce each time.
  std::string seal(std::string_view code) const;
  // nullopt when the text was not sealed under this key (another secret) or was altered.
  std::optional<std::string> open(std::string_view sealed) const;
  // The same for a stored answer that shows a code (an issue's, kept for Idempotency-Key
  // replays): up to kMaxSealedAnswer bytes of text.
  std::optional<std::string> open_answer(std::string_view sealed) const;
  static constexpr std::size_t kMaxSealedAnswer = 16 * 1024;

 private:
  std::optional<std::string> open_up_to(std::string_view sealed, std::size_t max_hex) const;
  std::string key_;  // 32 bytes
};

}  // namespace mediagen::reseller
