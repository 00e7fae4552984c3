#include "music_composer.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include "music_drums.hpp"

namespace mediagen::engines::music {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
int Rng::below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
int Rng::between(int lo, int hi) { return lo + below(hi - lo + 1); }
bool Rng::chance(int percent) { return below(100) < percent; }

int channel_of(Part part) {
  static constexpr std::array<int, kParts> kChannels = {0, 1, 2, 3, kDrumChannel};
  return kChannels[static_cast<std::size_t>(part)];
}

namespace {

constexpr std::array<std::array<int, 7>, 5> kScales = {{{0, 2, 4, 5, 7, 9, 11},   // major
                                                        {0, 2, 3, 5, 7, 8, 10},   // minor
                                                        {0, 2, 3, 5, 7, 9, 10},   // dorian
                                                        {0, 2, 4, 5, 7, 9, 10},   // mixolydian
                                                        {0, 1, 3, 5, 7, 8, 10}}};  // phrygian

// Rhythms on an eighth-note grid of one 4/4 bar ('x' = a hit); a 3/4 bar plays the first six.
constexpr std::array<std::array<std::string_view, 3>, 5> kCompRhythms = {{
    {"x.......", "x...x...", "x.......",},  // sustain
    {"x.x.x.x.", "x..x..x.", "x.x.xx.x"},   // pulse
    {".x.x.x.x", "..x.x.x.", ".x.x.xx."},   // offbeat
    {"xxxxxxxx", "xxxxxxxx", "xxxxxxxx"},   // arpeggio (the variant picks the order instead)
    {"xxxxxxxx", "x.xxx.xx", "x..x..x."},   // power
}};
constexpr std::array<std::string_view, 5> kBassRhythms = {"x...x...", "x..x..x.", "x.x.x.x.", "xxxxxxxx", "x.....x."};
constexpr std::array<std::array<int, 4>, 3> kArpeggioOrders = {{{0, 1, 2, 3}, {3, 2, 1, 0}, {0, 2, 1, 3}}};

enum class Section : std::uint8_t { intro, a, b, outro };
struct SectionPlan {
  Section kind;
  int first_bar;
  int bars;
};

// What the seed decides for one kind of section; a section that returns plays the same choices.
struct Choices {
  Progression progression{};
  int comp = 0, inversion = 0, bass = 0, drums = 0, fill = 0;
  std::uint64_t melody_seed = 0;
};

struct Writer {
  const Style& style;
  int energy;
  std::int64_t ticks_per_bar;
  std::int64_t total_ticks;
  int key_base;  // MIDI key of the tonic in the chord register's lower octave
  std::vector<Note>& notes;
  Rng& humanize;
  int section_lift = 0;  // the intro plays softer and the B sections louder than the A sections

  int velocity(int offset) {
    const int base = energy < 0 ? 62 : energy > 0 ? 96 : 80;
    return std::clamp(base + section_lift + offset + humanize.between(-6, 6), 1, 127);
  }
  void add(std::int64_t on, std::int64_t off, Part part, int key, int vel) {
    if (on >= total_ticks || key < 0 || key > 127) return;
    off = std::min(off, total_ticks);
    if (off <= on) return;
    notes.push_back({on, off, static_cast<std::uint8_t>(channel_of(part)), static_cast<std::uint8_t>(key),
                     static_cast<std::uint8_t>(std::clamp(vel, 1, 127))});
  }
  // The key of a scale degree (any integer; 7 = the tonic an octave up) above `base`.
  int pitch(int base, int degree) const {
    const int octave = degree >= 0 ? degree / 7 : -((-degree + 6) / 7);
    const auto& scale = kScales[static_cast<std::size_t>(style.mode)];
    return base + 12 * octave + scale[static_cast<std::size_t>(degree - 7 * octave)];
  }
  // An off-beat eighth moves later by the swing.
  std::int64_t swung(std::int64_t tick) const {
    if (style.swing == 50 || tick % kTicksPerBeat != kTicksPerBeat / 2) return tick;
    return tick - kTicksPerBeat / 2 + kTicksPerBeat * style.swing / 100;
  }
};

std::vector<SectionPlan> plan_sections(int bars) {
  std::vector<SectionPlan> plan;
  const int edge = bars >= 12 ? 2 : bars >= 6 ? 1 : 0;
  if (edge > 0) plan.push_back({Section::intro, 0, edge});
  const int length = bars >= 24 ? 8 : 4;
  bool a = true;
  for (int bar = edge; bar < bars - edge; bar += length, a = !a) {
    plan.push_back({a ? Section::a : Section::b, bar, std::min(length, bars - edge - bar)});
  }
  if (edge > 0) plan.push_back({Section::outro, bars - edge, edge});
  return plan;
}

Choices choose(const Style& style, Rng& rng) {
  Choices c;
  c.progression = progressions()[style.progressions[static_cast<std::size_t>(rng.below(3))]];
  c.comp = rng.below(3);
  c.inversion = rng.below(3);
  c.bass = rng.below(3);
  c.drums = rng.below(static_cast<int>(std::max<std::size_t>(1, drum_kit(style.kit).patterns.size())));
  c.fill = rng.below(static_cast<int>(drum_fills().size()));
  c.melody_seed = rng.next();
  return c;
}

// Chord tones as scale degrees, the root first.
std::vector<int> chord_degrees(const Style& style, int root) {
  std::vector<int> degrees = {root, root + 2, root + 4};
  if (style.sevenths) degrees.push_back(root + 6);
  return degrees;
}

void write_chord(Writer& w, const Choices& c, int root, std::int64_t start, std::int64_t end) {
  if (w.style.chords < 0) return;
  const Comp comp = w.style.comp;
  std::vector<int> keys;
  if (comp == Comp::power) {
    keys = {w.pitch(w.key_base - 12, root), w.pitch(w.key_base - 12, root) + 7, w.pitch(w.key_base - 12, root) + 12};
  } else {
    for (const int degree : chord_degrees(w.style, root)) keys.push_back(w.pitch(w.key_base + 12, degree));
    for (int i = 0; i < c.inversion && i < static_cast<int>(keys.size()); ++i) keys[static_cast<std::size_t>(i)] += 12;
    std::sort(keys.begin(), keys.end());
  }
  const auto rhythm = kCompRhythms[static_cast<std::size_t>(comp)][static_cast<std::size_t>(c.comp)];
  const int steps = w.style.beats_per_bar * 2;
  const std::int64_t step_ticks = kTicksPerBeat / 2;
  int arpeggio_at = 0;
  for (std::int64_t bar = start; bar < end; bar += w.ticks_per_bar) {
    for (int s = 0; s < steps; ++s) {
      if (rhythm[static_cast<std::size_t>(s)] != 'x') continue;
      int next = s + 1;
      while (next < steps && rhythm[static_cast<std::size_t>(next)] != 'x') ++next;
      const std::int64_t on = w.swung(bar + s * step_ticks);
      std::int64_t length = (next - s) * step_ticks * 9 / 10;
      if (comp == Comp::offbeat) length = std::min<std::int64_t>(length, step_ticks * 6 / 10);
      if (comp == Comp::sustain && next == steps) length = end - on;  // hold to the chord's end
      if (comp == Comp::arpeggio) {
        const auto& order = kArpeggioOrders[static_cast<std::size_t>(c.comp)];
        const auto slot = static_cast<std::size_t>(order[static_cast<std::size_t>(arpeggio_at++ % 4)]);
        w.add(on, on + step_ticks * 2, Part::chords, keys[slot % keys.size()], w.velocity(-12));
        continue;
      }
      const int accent = s == 0 ? 0 : -8;
      for (const int key : keys) w.add(on, std::min(on + length, end), Part::chords, key, w.velocity(-10 + accent));
    }
  }
}

void write_pad_and_bass(Writer& w, const Choices& c, int root, int next_root, std::int64_t start, std::int64_t end) {
  if (w.style.pad >= 0) {
    for (const int degree : chord_degrees(w.style, root)) {
      w.add(start, end, Part::pad, w.pitch(w.key_base + 12, degree), w.velocity(-28));
    }
  }
  if (w.style.bass < 0) return;
  const int bass_base = w.key_base - 12;
  if (w.style.kit == Kit::jazz) {  // walking: a quarter per beat, stepping towards the next root
    const int beats = static_cast<int>((end - start) / kTicksPerBeat);
    for (int b = 0; b < beats; ++b) {
      const int degree = b == 0 ? root : root + (next_root >= root ? b % 4 : -(b % 4));
      w.add(start + b * kTicksPerBeat, start + (b + 1) * kTicksPerBeat - 20, Part::bass, w.pitch(bass_base, degree),
            w.velocity(b == 0 ? 0 : -8));
    }
    return;
  }
  const int variant = w.energy < 0 ? (c.bass % 2 == 0 ? 0 : 4) : w.energy > 0 ? 2 + c.bass % 2 : c.bass;
  const auto rhythm = kBassRhythms[static_cast<std::size_t>(variant)];
  const int steps = w.style.beats_per_bar * 2;
  const std::int64_t step_ticks = kTicksPerBeat / 2;
  Rng notes(c.melody_seed ^ 0xBA55u);
  for (std::int64_t bar = start; bar < end; bar += w.ticks_per_bar) {
    for (int s = 0; s < steps; ++s) {
      if (rhythm[static_cast<std::size_t>(s)] != 'x') continue;
      int next = s + 1;
      while (next < steps && rhythm[static_cast<std::size_t>(next)] != 'x') ++next;
      const int degree = s == 0 ? root : notes.chance(25) ? root + 4 : notes.chance(15) ? root + 7 : root;
      const std::int64_t on = w.swung(bar + s * step_ticks);
      w.add(on, std::min(end, bar + next * step_ticks - 30), Part::bass, w.pitch(bass_base, degree),
            w.velocity(s == 0 ? 4 : -4));
    }
  }
}

void write_drums(Writer& w, const Choices& c, std::int64_t bar, bool first, bool last) {
  const DrumKit& kit = drum_kit(w.style.kit);
  if (kit.patterns.empty()) return;
  const DrumPattern& pattern = kit.patterns[static_cast<std::size_t>(c.drums) % kit.patterns.size()];
  const int steps = w.style.beats_per_bar * 4;
  const bool fill = last && kit.crash_and_fills;
  const auto drum_velocity = [&](int v) { return w.velocity(v - 80) * kit.velocity_percent / 100; };
  for (int s = 0; s < steps; ++s) {
    const std::int64_t on = w.swung(bar + s * kTicksPerBeat / 4);
    if (fill && s >= steps - 4) {
      const auto key = drum_fills()[static_cast<std::size_t>(c.fill)][static_cast<std::size_t>(s - (steps - 4))];
      if (key != 0) w.add(on, on + 60, Part::drums, key, drum_velocity(90 + 6 * (s - (steps - 4))));
      continue;
    }
    for (const auto& line : pattern) {
      if (line.key == 0 || static_cast<std::size_t>(s) >= line.steps.size()) continue;
      const int v = step_velocity(line.steps[static_cast<std::size_t>(s)]);
      if (v > 0) w.add(on, on + 60, Part::drums, line.key, drum_velocity(v));
    }
  }
  if (first && kit.crash_and_fills) w.add(bar, bar + 60, Part::drums, 49, drum_velocity(100));
}

// The nearest chord tone (root, third or fifth in any octave) to a scale degree.
int snap_to_chord(int degree, int root) {
  int best = degree, distance = 99;
  for (int tone = root - 14; tone <= root + 21; ++tone) {
    const int step = ((tone - root) % 7 + 7) % 7;
    if (step != 0 && step != 2 && step != 4) continue;
    if (std::abs(tone - degree) < distance) {
      best = tone;
      distance = std::abs(tone - degree);
    }
  }
  return best;
}

int lead_base(const Writer& w) { return w.key_base + 24 - (w.key_base + 24 > 72 ? 12 : 0); }

// A two-bar phrase on the eighth grid: 0 = rest, else 100 + the scale degree.
std::vector<int> make_phrase(const Writer& w, Rng& r, std::vector<int> phrase, std::size_t from) {
  static constexpr std::array<int, 7> kSteps = {-2, -1, -1, 0, 1, 1, 2};
  int degree = 4;
  for (std::size_t i = 0; i < from; ++i) degree = phrase[i] != 0 ? phrase[i] - 100 : degree;
  for (std::size_t i = from; i < phrase.size(); ++i) {
    const int percent = w.style.density * (i % 2 == 0 ? 13 : 6) / 10;
    if (i != 0 && !r.chance(percent)) {
      phrase[i] = 0;
      continue;
    }
    degree = std::clamp(degree + kSteps[static_cast<std::size_t>(r.below(7))], -1, 9);
    phrase[i] = 100 + degree;
  }
  return phrase;
}

void write_melody(Writer& w, const SectionPlan& section, const Choices& c) {
  if (w.style.lead < 0) return;
  Rng r(c.melody_seed);
  const std::size_t slots = static_cast<std::size_t>(w.style.beats_per_bar) * 2 * 2;
  const auto motif = make_phrase(w, r, std::vector<int>(slots, 0), 0);
  const auto answer = make_phrase(w, r, motif, slots * 2 / 3);
  const std::int64_t step_ticks = kTicksPerBeat / 2;
  for (int bar = 0; bar < section.bars; bar += 2) {
    const auto& phrase = (bar / 2) % 2 == 0 ? motif : answer;
    const std::int64_t start = (section.first_bar + bar) * w.ticks_per_bar;
    const std::int64_t phrase_end = (section.first_bar + std::min(bar + 2, section.bars)) * w.ticks_per_bar;
    for (std::size_t i = 0; i < slots; ++i) {
      if (phrase[i] == 0) continue;
      std::size_t next = i + 1;
      while (next < slots && phrase[next] == 0) ++next;
      const std::int64_t on = w.swung(start + static_cast<std::int64_t>(i) * step_ticks);
      if (on >= phrase_end) break;
      const int chord_bar = bar + static_cast<int>(i / (slots / 2));
      const int root = c.progression[static_cast<std::size_t>((chord_bar / w.style.bars_per_chord) % 4)];
      const int degree = i % 2 == 0 ? snap_to_chord(phrase[i] - 100, root) : phrase[i] - 100;
      const std::int64_t length = std::min<std::int64_t>(static_cast<std::int64_t>(next - i) * step_ticks, 4 * kTicksPerBeat);
      w.add(on, std::min(phrase_end, on + length * 92 / 100), Part::lead, w.pitch(lead_base(w), degree),
            w.velocity(i % 4 == 0 ? 8 : 2));
    }
  }
}

// The last bar: the tonic chord held to the end under the fade, a crash and a kick to land on.
void write_ending(Writer& w, std::int64_t bar, const Choices& c) {
  const std::int64_t end = w.total_ticks;
  for (const int degree : chord_degrees(w.style, 0)) {
    if (w.style.chords >= 0) w.add(bar, end, Part::chords, w.pitch(w.key_base + 12, degree), w.velocity(-10));
    if (w.style.pad >= 0) w.add(bar, end, Part::pad, w.pitch(w.key_base + 12, degree), w.velocity(-28));
  }
  if (w.style.bass >= 0) w.add(bar, end, Part::bass, w.pitch(w.key_base - 12, 0), w.velocity(0));
  if (w.style.lead >= 0) w.add(bar, end, Part::lead, w.pitch(lead_base(w), c.inversion == 0 ? 7 : 4), w.velocity(0));
  if (drum_kit(w.style.kit).crash_and_fills) {
    w.add(bar, bar + 60, Part::drums, 49, w.velocity(10));
    w.add(bar, bar + 60, Part::drums, 36, w.velocity(10));
  }
}

void write_section(Writer& w, const SectionPlan& section, const Choices& c) {
  const std::int64_t start = section.first_bar * w.ticks_per_bar;
  const int span = w.style.bars_per_chord;
  for (int bar = 0; bar < section.bars; bar += span) {
    const auto chord_index = static_cast<std::size_t>((bar / span) % 4);
    const int root = c.progression[chord_index];
    const int next_root = c.progression[(chord_index + 1) % 4];
    const std::int64_t from = start + bar * w.ticks_per_bar;
    const std::int64_t to = start + std::min(bar + span, section.bars) * w.ticks_per_bar;
    write_chord(w, c, root, from, to);
    write_pad_and_bass(w, c, root, next_root, from, to);
  }
  const bool drums = section.kind == Section::a || section.kind == Section::b ||
                     (section.kind == Section::outro && section.bars > 1);
  const int drum_bars = section.kind == Section::outro ? section.bars - 1 : section.bars;
  for (int bar = 0; drums && bar < drum_bars; ++bar) {
    write_drums(w, c, start + bar * w.ticks_per_bar, bar == 0 && section.kind != Section::outro,
                bar == drum_bars - 1 && section.kind != Section::outro);
  }
  if (section.kind != Section::intro) write_melody(w, section, c);
}

}  // namespace

Score compose(const Arrangement& arrangement, std::int64_t total_samples, std::uint64_t seed) {
  const Style& style = arrangement.style;
  Score score;
  score.style = std::string(style.name);
  score.bpm = style.bpm;
  score.beats_per_bar = style.beats_per_bar;
  score.tonic = style.tonic;
  score.mode = style.mode;
  score.total_ticks = std::max<std::int64_t>(1, total_samples * style.bpm * kTicksPerBeat / (60 * kSampleRate));
  const std::int64_t ticks_per_bar = static_cast<std::int64_t>(style.beats_per_bar) * kTicksPerBeat;
  const int bars = static_cast<int>((score.total_ticks + ticks_per_bar - 1) / ticks_per_bar);
  score.parts[static_cast<std::size_t>(Part::chords)] = {style.chords, 88, 44, 45};
  score.parts[static_cast<std::size_t>(Part::pad)] = {style.pad, 64, 84, 70};
  score.parts[static_cast<std::size_t>(Part::bass)] = {style.bass, 100, 64, 20};
  score.parts[static_cast<std::size_t>(Part::lead)] = {style.lead, 100, 74, 50};
  score.parts[static_cast<std::size_t>(Part::drums)] = {style.kit == Kit::none ? -1 : 0, 120, 64, 30};

  Rng rng(seed);
  Rng humanize(seed ^ 0x5EEDu);
  const Choices a = choose(style, rng);
  const Choices b = choose(style, rng);
  Writer w{style, arrangement.energy, ticks_per_bar, score.total_ticks, 48 + style.tonic - (style.tonic >= 6 ? 12 : 0),
           score.notes, humanize};
  const auto plan = plan_sections(bars);
  for (const auto& section : plan) {
    SectionPlan played = section;
    if (section.first_bar + section.bars == bars) played.bars -= 1;  // the last bar is the ending
    w.section_lift = section.kind == Section::intro ? -6 : section.kind == Section::b ? 5 : 0;
    if (played.bars > 0) write_section(w, played, section.kind == Section::b ? b : a);
  }
  w.section_lift = 0;
  write_ending(w, static_cast<std::int64_t>(bars - 1) * ticks_per_bar, a);
  std::sort(score.notes.begin(), score.notes.end(), [](const Note& x, const Note& y) {
    return std::tie(x.on, x.channel, x.key, x.off) < std::tie(y.on, y.channel, y.key, y.off);
  });
  return score;
}

}  // namespace mediagen::engines::music
