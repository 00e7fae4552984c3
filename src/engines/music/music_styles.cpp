#include "music_styles.hpp"

#include <algorithm>
#include <string>

#include "mediagen/engines/prompt.hpp"

namespace mediagen::engines::music {

const std::vector<Progression>& progressions() {
  static const std::vector<Progression> table = {
      {0, 4, 5, 3},  // 0  I V vi IV
      {5, 3, 0, 4},  // 1  vi IV I V
      {0, 5, 3, 4},  // 2  I vi IV V
      {0, 5, 2, 6},  // 3  i VI III VII
      {0, 3, 4, 0},  // 4  i iv v i
      {1, 4, 0, 0},  // 5  ii V I I
      {0, 6, 5, 6},  // 6  i VII VI VII
      {0, 3, 0, 4},  // 7  I IV I V
      {0, 3, 5, 4},  // 8  i iv VI V
      {0, 1, 0, 6},  // 9  i II i VII (phrygian)
  };
  return table;
}

// Programs: 0 piano, 4 electric piano, 10 music box, 11 vibraphone, 12 marimba, 25 steel guitar,
// 29 overdriven and 30 distortion guitar, 32 acoustic, 33 finger, 34 pick and 38 synth bass,
// 40 violin, 42 cello, 43 contrabass, 44 tremolo strings, 45 pizzicato, 46 harp, 48/49 strings,
// 52 choir, 60 French horn, 65 alto sax, 73 flute, 80 square and 81 saw lead, 89 warm pad,
// 94 halo pad, 95 sweep pad.
const std::vector<Style>& styles() {
  using enum Mode;
  static const std::vector<Style> table = {
      // name, stems, bpm, tonic, mode, progressions, chords pad bass lead, comp, kit, density,
      // beats per bar, bars per chord, swing, sevenths
      {"default", {}, 100, 0, major, {0, 2, 1}, 0, 49, 33, 73, Comp::pulse, Kit::pop, 45, 4, 1, 50, false},
      {"ambient",
       {"ambient", "sleep", "lullab", "meditat", "relax", "dream", "сон", "сна", "сну", "колыбельн", "медитац",
        "релакс", "расслаб", "эмбиент", "мечт"},
       66, 5, major, {0, 2, 7}, 46, 89, -1, 10, Comp::arpeggio, Kit::none, 22, 4, 2, 50, false},
      {"rock", {"rock", "punk", "metal", "grunge", "рок", "панк", "метал", "гранж"}, 128, 4, major, {0, 6, 7}, 30, -1,
       34, 29, Comp::power, Kit::rock, 55, 4, 1, 50, false},
      {"drum and bass",
       {"dnb", "drum and bass", "drum n bass", "drum bass", "drumandbass", "jungle", "=днб", "драм н бейс",
        "драм энд бейс", "драмнбейс", "джангл"},
       174, 5, minor, {3, 8, 6}, 89, -1, 38, 4, Comp::sustain, Kit::dnb, 40, 4, 2, 50, true},
      {"lofi hip hop",
       {"lofi", "lo fi", "hip hop", "hiphop", "chillhop", "rap", "лоуфай", "лофай", "хип хоп", "хипхоп", "рэп",
        "beats"},
       82, 2, dorian, {5, 3, 8}, 4, -1, 33, 11, Comp::offbeat, Kit::hiphop, 35, 4, 1, 60, true},
      {"orchestral",
       {"orchestr", "epic", "cinemat", "film", "movie", "trailer", "soundtrack", "heroic", "battle", "оркестр",
        "эпич", "кино", "фильм", "саундтрек", "героич", "битв"},
       90, 2, minor, {3, 6, 8}, 48, 52, 43, 60, Comp::pulse, Kit::epic, 35, 4, 1, 50, false},
      {"electronic",
       {"electro", "edm", "dance", "house", "techno", "trance", "club", "disco", "synthwave", "электрон", "танц",
        "техно", "хаус", "транс", "клуб", "диско"},
       124, 9, minor, {3, 6, 8}, 81, 89, 38, 80, Comp::offbeat, Kit::four_floor, 50, 4, 1, 50, false},
      {"jazz", {"jazz", "swing", "bossa", "blues", "lounge", "джаз", "свинг", "босса", "блюз", "лаунж"}, 120, 10,
       major, {5, 2, 1}, 0, -1, 32, 65, Comp::offbeat, Kit::jazz, 45, 4, 1, 64, true},
      {"waltz", {"waltz", "classic", "baroque", "вальс", "классич", "барокко"}, 138, 7, major, {0, 7, 2}, 48, -1, 42,
       40, Comp::offbeat, Kit::none, 45, 3, 1, 50, false},
      {"folk",
       {"folk", "acoustic", "country", "campfire", "celtic", "фолк", "акустич", "кантри", "костер", "кельт"},
       100, 7, major, {7, 0, 2}, 25, -1, 32, 73, Comp::arpeggio, Kit::soft, 45, 4, 1, 50, false},
      {"horror",
       {"horror", "scary", "creepy", "spooky", "suspense", "halloween", "thriller", "ужас", "страшн", "хоррор",
        "жутк", "мистик", "мистич", "тревож", "триллер"},
       60, 1, phrygian, {9, 4, 9}, 44, 95, 43, 8, Comp::sustain, Kit::none, 15, 4, 2, 50, false},
      {"playful",
       {"kid", "child", "cartoon", "game", "playful", "funny", "детск", "дет", "мульт", "игр", "смешн", "забавн"}, 120,
       0, major, {0, 7, 2}, 45, -1, 32, 12, Comp::pulse, Kit::pop, 55, 4, 1, 50, false},
  };
  return table;
}

const std::vector<Modifier>& modifiers() {
  using enum Mode;
  static const std::vector<Modifier> table = {
      {.name = "slow", .stems = {"slow", "медленн", "неторопл", "плавн"}, .tempo_percent = 75},
      {.name = "fast", .stems = {"fast", "quick", "rapid", "быстр", "стремит"}, .tempo_percent = 125},
      {.name = "calm",
       .stems = {"calm", "peaceful", "gentle", "soft", "quiet", "chill", "tranquil", "спокойн", "тих", "мягк",
                 "нежн", "умиротвор"},
       .energy = -1},
      {.name = "energetic",
       .stems = {"energ", "power", "intense", "upbeat", "driving", "aggressive", "busy", "энерг", "мощн", "драйв",
                 "интенсив", "агрессив", "бодр", "заводн"},
       .energy = 1},
      {.name = "dark",
       .stems = {"dark", "sad", "melanchol", "gloomy", "minor", "grim", "темн", "грустн", "печальн", "мрачн",
                 "минор", "тоскл"},
       .mode = minor},
      {.name = "happy",
       .stems = {"happy", "cheer", "joy", "bright", "sunny", "fun", "major", "uplift", "весел", "радост",
                 "счастлив", "светл", "позитив", "мажор"},
       .mode = major},
      {.name = "piano", .stems = {"piano", "пианино", "фортепиан", "рояль"}, .instrument = 0},
      {.name = "electric guitar", .stems = {"electric guitar", "электрогитар"}, .instrument = 29},
      {.name = "guitar", .stems = {"guitar", "гитар"}, .instrument = 25},
      {.name = "strings", .stems = {"string", "струнн"}, .instrument = 48},
      {.name = "violin", .stems = {"violin", "скрипк", "скрипач"}, .instrument = 40},
      {.name = "cello", .stems = {"cello", "виолончел"}, .instrument = 42},
      {.name = "flute", .stems = {"flute", "флейт"}, .instrument = 73},
      {.name = "saxophone", .stems = {"sax", "саксофон"}, .instrument = 65},
      {.name = "trumpet", .stems = {"trumpet", "=труба", "трубы", "трубой"}, .instrument = 56},
      {.name = "organ", .stems = {"organ", "=орган", "органа", "органом"}, .instrument = 19},
      {.name = "synth", .stems = {"synth", "синтез", "синт"}, .instrument = 81},
      {.name = "harp", .stems = {"harp", "арф"}, .instrument = 46},
      {.name = "bells", .stems = {"music box", "bell", "колокол", "шкатулк"}, .instrument = 10},
      {.name = "choir", .stems = {"choir", "=хор", "хора", "хором"}, .instrument = 52},
      {.name = "no drums",
       .stems = {"no drums", "without drums", "no percussion", "без ударн", "без барабан", "без перкусс"},
       .no_drums = true},
  };
  return table;
}

namespace {

// Whether `stem` matches at word i: each of its space-separated parts is a prefix of the next word
// in a row ("=" before a part: the whole word).
bool matches_at(const std::vector<std::string>& words, std::size_t i, std::string_view stem) {
  while (!stem.empty()) {
    if (i >= words.size()) return false;
    const std::size_t space = stem.find(' ');
    std::string_view part = stem.substr(0, space);
    const std::string_view word = words[i];
    if (part.starts_with('=')) {
      if (word != part.substr(1)) return false;
    } else if (!word.starts_with(part)) {
      return false;
    }
    ++i;
    stem = space == std::string_view::npos ? std::string_view{} : stem.substr(space + 1);
  }
  return true;
}

template <std::size_t N>
int count_matches(const std::vector<std::string>& words, const std::array<std::string_view, N>& stems) {
  int count = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (const auto stem : stems) {
      if (!stem.empty() && matches_at(words, i, stem)) {
        ++count;
        break;
      }
    }
  }
  return count;
}

Kit calmer(Kit kit) {
  switch (kit) {
    case Kit::pop: case Kit::hiphop: case Kit::four_floor: case Kit::jazz: case Kit::dnb: return Kit::soft;
    case Kit::rock: return Kit::pop;
    default: return Kit::none;
  }
}

Kit busier(Kit kit) {
  switch (kit) {
    case Kit::none: return Kit::soft;
    case Kit::soft: return Kit::pop;
    case Kit::pop: return Kit::rock;
    default: return kit;
  }
}

}  // namespace

Arrangement arrange(std::string_view prompt) {
  const auto words = prompt_words(prompt);
  const auto& table = styles();
  std::size_t best = 0;
  int best_count = 0;
  for (std::size_t s = 1; s < table.size(); ++s) {
    const int count = count_matches(words, table[s].stems);
    if (count > best_count) {
      best = s;
      best_count = count;
    }
  }
  Arrangement out{table[best], 0};
  Style& style = out.style;
  int tempo_percent = 100;
  bool instrument_set = false;
  bool no_drums = false;
  for (const auto& modifier : modifiers()) {
    if (count_matches(words, modifier.stems) == 0) continue;
    tempo_percent = tempo_percent * modifier.tempo_percent / 100;
    out.energy = std::clamp(out.energy + modifier.energy, -1, 1);
    if (modifier.mode) style.mode = *modifier.mode;
    // The first instrument in the table wins ("electric guitar" stands before "guitar").
    if (modifier.instrument >= 0 && !instrument_set) {
      style.chords = style.lead = modifier.instrument;
      instrument_set = true;
    }
    no_drums = no_drums || modifier.no_drums;
  }
  // "fast" does not push a style that is fast already far past its own tempo.
  style.bpm = std::clamp(style.bpm * tempo_percent / 100, 50, std::max(style.bpm, 176));
  if (out.energy < 0) {
    style.kit = calmer(style.kit);
    style.density = style.density * 5 / 10;
    if (style.comp == Comp::pulse || style.comp == Comp::power) style.comp = Comp::sustain;
  } else if (out.energy > 0) {
    style.kit = busier(style.kit);
    // The chords keep their comping: restriking pads every beat piles up their long releases.
    style.density = std::min(90, style.density * 14 / 10);
  }
  if (no_drums) style.kit = Kit::none;
  return out;
}

}  // namespace mediagen::engines::music
