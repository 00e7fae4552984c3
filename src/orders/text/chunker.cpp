#include "mediagen/orders/text.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "chunk_scan.hpp"

namespace mediagen::orders {

namespace {

using namespace scan;  // the byte-level scan of chunk_scan.hpp

// Tags longer than this are not protected from cuts (a stray '<' must not glue a long text).
constexpr std::size_t kMaxTagBytes = 128;

// A chunk as byte positions of the cleaned text: text [begin, end), separator [end, next).
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t next = 0;
  std::optional<std::size_t> paragraph;
};

// A place the chunk that started at the scan position may end: the chunk is [p, end), the next
// one starts at `next`; `units` and `code_points` measure [p, end).
struct Cut {
  std::size_t end = 0;
  std::size_t next = 0;
  std::size_t units = 0;
  std::size_t code_points = 0;
};

class Splitter {
 public:
  Splitter(std::string_view text, std::size_t capacity, CapacityUnit unit, std::vector<Span>& out)
      : text_(text), capacity_(capacity), bytes_(unit == CapacityUnit::utf8_bytes), out_(out) {}

  // The next split's first chunk is a lead chunk (text.hpp) of at most `capacity` units.
  void lead_with(std::size_t capacity) noexcept { lead_ = std::min(capacity, capacity_); }

  // Splits [begin, end), which starts and ends with a non-space, into spans.
  void split(std::size_t begin, std::size_t end, std::optional<std::size_t> paragraph) {
    end_ = end;
    std::size_t p = begin;
    while (p < end) {
      const Cut cut = lead_ > 0 ? lead_cut(p, end) : next_cut(p, end);
      out_.push_back(Span{p, cut.end, cut.next, paragraph});
      p = cut.next;
    }
  }

 private:
  // The lead chunk: the scan of next_cut in the smaller window, stopping at the first sentence
  // boundary past kLeadMinChars. Once only.
  Cut lead_cut(std::size_t p, std::size_t end) noexcept {
    const std::size_t full = capacity_;
    capacity_ = lead_;
    stop_after_ = kLeadMinChars;
    const Cut cut = next_cut(p, end);
    capacity_ = full;
    stop_after_ = 0;
    lead_ = 0;
    return cut;
  }

  // An angle-bracket tag starting at `lt` ("<break time=\"1s\" />"): the position after its
  // '>' when the tag is short (no '<' or line break before the '>', at most kMaxTagBytes) and
  // fits the capacity, so it is never cut; otherwise `lt` (not protected).
  std::size_t tag_end_at(std::size_t lt, std::size_t end) const noexcept {
    const std::size_t limit = std::min(end, lt + kMaxTagBytes);
    for (std::size_t i = lt + 1; i < limit; ++i) {
      const char c = text_[i];
      if (c == '<' || c == '\n' || c == '\r') return lt;
      if (c == '>') {
        const std::string_view tag = text_.substr(lt, i + 1 - lt);
        const std::size_t size = bytes_ ? tag.size() : count_code_points(tag);
        return size <= capacity_ ? i + 1 : lt;
      }
    }
    return lt;
  }

  bool big_enough(const Cut& cut) const noexcept {
    return cut.code_points >= kComfortableChunkChars || 2 * cut.units >= capacity_;
  }

  Cut next_cut(std::size_t p, std::size_t end) const noexcept {
    enum class After { none, terminator, cjk_terminator };
    std::optional<Cut> paragraph_cut, sentence_cut, word_cut;
    After after = After::none;
    std::size_t units = 0;
    std::size_t code_points = 0;
    std::size_t tag_end = 0;  // whitespace before this position is inside a tag: no cut there
    std::size_t q = p;
    while (q < end) {
      if (after == After::none) {
        // The common case: a letter that changes nothing but the measure.
        if (kPlainAscii.table[static_cast<unsigned char>(text_[q])]) {
          if (units + 1 > capacity_) return choose(p, q, paragraph_cut, sentence_cut, word_cut);
          ++units;
          ++code_points;
          ++q;
          continue;
        }
        if (plain_two_byte(text_, q, end)) {
          const std::size_t cp_units = bytes_ ? 2 : 1;
          if (units + cp_units > capacity_) return choose(p, q, paragraph_cut, sentence_cut, word_cut);
          units += cp_units;
          ++code_points;
          q += 2;
          continue;
        }
      }
      const CodePoint cp = next_code_point(text_, q);
      if (is_space(cp.value)) {
        // The region ends with a non-space, so the run ends before `end`.
        const SpaceRun run = scan_space_run(text_, q, end);
        if (q >= tag_end) {
          const Cut cut{q, run.end, units, code_points};
          if (run.breaks >= 2) paragraph_cut = cut;
          if (run.breaks >= 1 || after != After::none) {
            if (stop_after_ > 0 && code_points >= stop_after_) return cut;
            sentence_cut = cut;
          }
          word_cut = cut;
        }
        const std::size_t run_units = bytes_ ? run.end - q : run.code_points;
        if (units + run_units > capacity_) return choose(p, q, paragraph_cut, sentence_cut, word_cut);
        units += run_units;
        code_points += run.code_points;
        after = After::none;
        q = run.end;
        continue;
      }
      const std::size_t cp_units = bytes_ ? cp.length : 1;
      if (units + cp_units > capacity_) return choose(p, q, paragraph_cut, sentence_cut, word_cut);
      if (after == After::cjk_terminator && !is_closer(cp.value) && !is_terminator(cp.value) && q >= tag_end) {
        sentence_cut = Cut{q, q, units, code_points};
        if (stop_after_ > 0 && code_points >= stop_after_) return *sentence_cut;
      }
      if (cp.value == U'<' && q >= tag_end) tag_end = tag_end_at(q, end);
      if (is_terminator(cp.value)) {
        after = is_cjk_terminator(cp.value) ? After::cjk_terminator : After::terminator;
      } else if (!(after != After::none && is_closer(cp.value))) {
        after = After::none;
      }
      units += cp_units;
      ++code_points;
      q += cp.length;
    }
    return Cut{end, end, units, code_points};  // the rest fits
  }

  // The window [p, overflow) is full: pick where the chunk ends.
  Cut choose(std::size_t p, std::size_t overflow, const std::optional<Cut>& paragraph_cut,
             const std::optional<Cut>& sentence_cut, const std::optional<Cut>& word_cut) const noexcept {
    if (paragraph_cut && big_enough(*paragraph_cut)) return *paragraph_cut;
    if (sentence_cut && big_enough(*sentence_cut)) return *sentence_cut;
    if (word_cut && sentence_cut) return word_cut->end >= sentence_cut->end ? *word_cut : *sentence_cut;
    if (word_cut) return *word_cut;
    if (sentence_cut) return *sentence_cut;
    // One word longer than the capacity: cut inside it at a code point boundary.
    if (overflow == p) {
      // Not even one code point fits (a capacity in bytes below the code point's length).
      return cut_at(p, p + next_code_point(text_, p).length);
    }
    std::size_t cut = overflow;
    while (cut > p) {
      const std::size_t before = previous_code_point_start(text_, cut);
      if (!is_extender(next_code_point(text_, cut).value) && next_code_point(text_, before).value != 0x200D) break;
      cut = before;
    }
    if (cut == p) cut = overflow;  // the whole window is one cluster: cut at the code point
    return cut_at(p, cut);
  }

  // A cut at code point boundary `cut` inside [p, ...): whitespace on either side of it goes to
  // the separator, so both chunks stay trimmed.
  Cut cut_at(std::size_t p, std::size_t cut) const noexcept {
    std::size_t chunk_end = cut;
    while (chunk_end > p) {
      const std::size_t before = previous_code_point_start(text_, chunk_end);
      if (!is_space(next_code_point(text_, before).value)) break;
      chunk_end = before;
    }
    std::size_t next = cut;
    while (next < end_ && is_space(next_code_point(text_, next).value)) next += next_code_point(text_, next).length;
    return Cut{chunk_end, next, 0, 0};
  }

  std::string_view text_;
  std::size_t capacity_;
  bool bytes_;
  std::vector<Span>& out_;
  std::size_t end_ = 0;  // end of the region being split
  std::size_t lead_ = 0;        // > 0: the next chunk is a lead chunk of this many units
  std::size_t stop_after_ = 0;  // > 0: the scan ends at the first sentence boundary past this
};

// Paragraphs of a trimmed text: [begin, end) pairs, split at whitespace runs with a blank line.
// Only a line break can make one, so the scan looks at line-break bytes and takes the whitespace
// around them.
std::vector<std::pair<std::size_t, std::size_t>> paragraphs_of(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> paragraphs;
  std::size_t begin = 0;
  std::size_t q = 0;
  while (q < text.size()) {
    const auto b = static_cast<unsigned char>(text[q]);
    if (!(b == '\n' || b == '\r' || b == '\v' || b == '\f' || b == 0xC2 || b == 0xE2)) {
      ++q;
      continue;
    }
    const CodePoint cp = next_code_point(text, q);
    if (line_break_weight(cp.value) == 0) {
      q += cp.length;
      continue;
    }
    std::size_t run_begin = q;
    while (run_begin > begin) {
      const std::size_t before = previous_code_point_start(text, run_begin);
      if (!is_space(next_code_point(text, before).value)) break;
      run_begin = before;
    }
    const SpaceRun run = scan_space_run(text, q, text.size());
    if (run.breaks >= 2) {
      paragraphs.emplace_back(begin, run_begin);
      begin = run.end;
    }
    q = run.end;
  }
  if (begin < text.size()) paragraphs.emplace_back(begin, text.size());
  return paragraphs;
}

}  // namespace

std::string_view to_string(GenerationMode mode) noexcept {
  return mode == GenerationMode::paragraph ? "paragraph" : "ordinary";
}

std::optional<GenerationMode> generation_mode_from_string(std::string_view name) noexcept {
  if (name == "ordinary") return GenerationMode::ordinary;
  if (name == "paragraph") return GenerationMode::paragraph;
  return std::nullopt;
}

ChunkPlan plan_chunks(std::string_view raw_text, const ChunkerOptions& options) {
  ChunkPlan plan;
  {
    std::string stripped = strip_brackets(raw_text);
    const std::string_view trimmed = trim_spaces(stripped);
    if (trimmed.size() == stripped.size()) {
      plan.cleaned = std::move(stripped);
    } else {
      plan.cleaned.assign(trimmed);
    }
  }
  const std::string_view text = plan.cleaned;
  plan.total_chars = count_code_points(text);
  if (text.empty()) return plan;

  const std::size_t capacity = std::max<std::size_t>(1, options.capacity);
  std::vector<Span> spans;
  Splitter splitter(text, capacity, options.unit, spans);
  if (options.lead_capacity > 0) splitter.lead_with(options.lead_capacity);
  if (options.mode == GenerationMode::paragraph) {
    const auto paragraphs = paragraphs_of(text);
    for (std::size_t k = 0; k < paragraphs.size(); ++k) {
      splitter.split(paragraphs[k].first, paragraphs[k].second, k);
      // The paragraph break belongs to the last chunk of the paragraph as its separator.
      spans.back().next = k + 1 < paragraphs.size() ? paragraphs[k + 1].first : text.size();
    }
  } else {
    splitter.split(0, text.size(), std::nullopt);
  }

  plan.chunks.reserve(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const Span& span = spans[i];
    ChunkText chunk;
    chunk.index = i;
    chunk.text.assign(text.substr(span.begin, span.end - span.begin));
    chunk.paragraph_index = span.paragraph;
    chunk.length = count_code_points(chunk.text);
    chunk.raw_length = options.unit == CapacityUnit::utf8_bytes ? chunk.text.size() : chunk.length;
    chunk.billable_length = chunk.length;
    chunk.pauses = count_pauses(chunk.text);
    chunk.separator.assign(text.substr(span.end, span.next - span.end));
    chunk.caps_ok = pauses_within_caps(chunk.pauses, chunk.length);
    plan.billable_chars += chunk.billable_length;
    plan.total_pauses += chunk.pauses;
    plan.caps_ok = plan.caps_ok && chunk.caps_ok;
    plan.chunks.push_back(std::move(chunk));
  }
  return plan;
}

std::string rejoin(const ChunkPlan& plan) {
  std::size_t size = 0;
  for (const ChunkText& chunk : plan.chunks) size += chunk.text.size() + chunk.separator.size();
  std::string out;
  out.reserve(size);
  for (const ChunkText& chunk : plan.chunks) {
    out += chunk.text;
    out += chunk.separator;
  }
  return out;
}

std::size_t max_billable_for(std::size_t free_length, std::size_t capacity) noexcept {
  const std::size_t with_surcharge = (free_length * 6 + 4) / 5;  // ceil(1.2 * free_length)
  return std::max(free_length, std::min(with_surcharge, capacity));
}

ChunkTextFields text_fields(const ChunkText& chunk, const ChunkerOptions& options) noexcept {
  const std::size_t capacity = std::max<std::size_t>(1, options.capacity);
  ChunkTextFields fields;
  fields.length = chunk.length;
  fields.original_text_length = chunk.length;
  fields.free_length = chunk.billable_length;
  fields.billable_length = chunk.billable_length;
  fields.max_billable_length = max_billable_for(chunk.billable_length, capacity);
  fields.max_raw_length = capacity;
  fields.surcharge_applies = false;
  fields.capacity_unit = options.unit;
  fields.raw_length = chunk.raw_length;
  return fields;
}

ChunkTextFields revise_text_fields(const ChunkTextFields& current, std::string_view cleaned_text) noexcept {
  ChunkTextFields fields = current;
  fields.length = count_code_points(cleaned_text);
  fields.billable_length = fields.length;
  fields.raw_length = measure(cleaned_text, current.capacity_unit);
  fields.surcharge_applies = fields.billable_length > fields.free_length;
  return fields;
}

bool within_limits(const ChunkTextFields& fields) noexcept {
  return fields.raw_length <= fields.max_raw_length && fields.billable_length <= fields.max_billable_length;
}

}  // namespace mediagen::orders
