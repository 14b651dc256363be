// sampan's SMILES reader for the 'ogb' fast path (see smiles_reader.h for what it reads and in
// which order, and why).
#include "featurize/smiles_reader.h"
#include "featurize/thread_scratch.h"

#include <algorithm>
#include <cstring>

namespace sampan::helix {

namespace {

// Element symbols by atomic number (IUPAC), for bracket atoms.
constexpr const char* kElementSymbols[] = {
    "*",  "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",
    "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
    "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn",
    "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho",
    "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po",
    "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md",
    "No", "Lr", "Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og"};
constexpr int kNumElements = sizeof(kElementSymbols) / sizeof(kElementSymbols[0]);

/// Atomic number of the element symbol of `length` (1 or 2) characters at `s`, 0 if none.
int element_number(const char* s, int length) {
  for (int z = 1; z < kNumElements; ++z) {
    const char* symbol = kElementSymbols[z];
    if (static_cast<int>(std::strlen(symbol)) == length && std::strncmp(symbol, s, length) == 0) return z;
  }
  return 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

/// A ring-closure digit waiting for its partner: the opening atom and the bond symbol written there.
struct OpenRing {
  int atom = -1;
  char symbol = 0;
  int event = -1;  // its entry in Reader::ring_events_
};

struct ClosureBond {
  int number, begin, end;
  char symbol;
  int id;  // order of closing (an index into Reader::closure_bond_)
};

/// A ring-closure digit written at an atom, in the order written (RDKit's _RingClosures).
struct RingEvent {
  int atom, closure;  // closure: ClosureBond::id
};

bool is_direction(char c) { return c == '/' || c == '\\'; }

class Reader {
 public:
  /// Reads `smiles` into `mol` (see read_smiles_arrays).
  bool read(const std::string& smiles, MolArrays& mol, StereoMarks* stereo) {
    why_ = nullptr;
    s_ = &smiles;
    mol_ = &mol;
    stereo_ = stereo;
    written_tag_.clear();
    fragment_start_.clear();
    bond_dir_.clear();
    ring_events_.clear();
    MolArrays& a = mol;
    a.z.clear();
    a.charge.clear();
    a.explicit_hs.clear();
    a.aromatic.clear();
    a.no_implicit.clear();
    a.bond_begin.clear();
    a.bond_end.clear();
    a.order.clear();
    a.bond_aromatic.clear();
    closures_.clear();
    branches_.clear();
    for (OpenRing& r : rings_) r = OpenRing();
    int open_rings = 0;
    int previous = -1;  // the atom the next one bonds to (-1 at the start and after '.')
    char pending = 0;   // bond symbol written before the next atom or ring digit
    bool branch_opened = false;  // '(' seen and no atom since: only a bond symbol or an atom may follow
    bool branch_closed = false;  // ')' seen and no atom since
    const std::string& s = smiles;
    const size_t length = s.size();
    size_t p = 0;
    while (p < length) {
      const char c = s[p];
      if (c == '[' || (c >= 'A' && c <= 'Z') || is_lower(c)) {
        if (!read_atom(p)) return false;
        const int atom = static_cast<int>(a.z.size()) - 1;
        fragment_start_.push_back(previous < 0);
        if (previous >= 0) {
          if (!add_bond(a.bond_begin, a.bond_end, previous, atom, pending)) return false;
        } else if (pending) {
          return fail("reader: syntax RDKit rejects");  // a bond symbol with nothing before it
        }
        pending = 0;
        previous = atom;
        branch_opened = false;
        branch_closed = false;
      } else if (c == '(') {
        // RDKit rejects "((" and an empty branch "()" (both found by fast_path_test's fuzz).
        if (previous < 0 || pending || branch_opened) return fail("reader: syntax RDKit rejects");
        branch_opened = true;
        branches_.push_back(previous);
        ++p;
      } else if (c == ')') {
        if (branches_.empty() || pending || branch_opened) return fail("reader: syntax RDKit rejects");
        previous = branches_.back();
        branches_.pop_back();
        branch_closed = true;
        ++p;
      } else if (c == '-' || c == '=' || c == '#' || is_direction(c)) {
        if (is_direction(c) && !stereo_) return fail("reader: stereo marks not asked for");
        if (previous < 0 || pending) return fail("reader: syntax RDKit rejects");
        pending = c;
        ++p;
      } else if (c == '.') {
        if (previous < 0 || pending || !branches_.empty()) return fail("reader: syntax RDKit rejects");
        previous = -1;
        ++p;
      } else if (is_digit(c) || c == '%') {
        int number;
        if (c == '%') {
          // '%' with two digits; '%0n' is left to RDKit's parser (it rejected "%01" where this
          // reader took it as ring 1: found by fast_path_test's fuzz with another seed).
          if (p + 2 >= length || !is_digit(s[p + 1]) || !is_digit(s[p + 2]) || s[p + 1] == '0') return fail("reader: ring number %0n or %(nnn)");
          number = 10 * (s[p + 1] - '0') + (s[p + 2] - '0');
          p += 3;
        } else {
          number = c - '0';
          ++p;
        }
        if (previous < 0 || branch_opened) return fail("reader: syntax RDKit rejects");
        // A ring digit after a branch at a tagged atom ("[C@@](C)1"): RDKit's tag then follows the
        // written place of the digit, not the atom's own place; left to RDKit (found by the fuzz).
        if (branch_closed && written_tag_[previous]) return fail("reader: ring digit after a branch at a tagged atom");
        // Directions written at ring-closure digits: RDKit's CloseMolRings may swap them; left to it.
        if (is_direction(pending)) return fail("reader: direction at a ring closure");
        OpenRing& ring = rings_[number];
        if (ring.atom < 0) {
          ring.atom = previous;
          ring.symbol = pending;
          ring.event = static_cast<int>(ring_events_.size());
          ring_events_.push_back({previous, -1});
          ++open_rings;
        } else {
          if (ring.atom == previous) return fail("reader: syntax RDKit rejects");
          if (ring.symbol && pending && ring.symbol != pending) return fail("reader: syntax RDKit rejects");
          const int id = static_cast<int>(closures_.size());
          ring_events_[ring.event].closure = id;
          ring_events_.push_back({previous, id});
          // RDKit's raw parse: the bond begins at the atom where its symbol was written, at the
          // closing atom when none was (checked against RDKit in smiles_reader_test.cpp).
          if (ring.symbol) {
            closures_.push_back({number, ring.atom, previous, ring.symbol, id});
          } else {
            closures_.push_back({number, previous, ring.atom, pending, id});
          }
          ring = OpenRing();
          --open_rings;
        }
        pending = 0;
      } else {
        return fail("reader: character outside the reader (':' '$' '~' '*' ...)");  // stereo bonds, ':', '$', '~', '*', spaces, anything unexpected
      }
    }
    // previous < 0 at the end: the SMILES ends in '.', which RDKit rejects.
    if (pending || open_rings || !branches_.empty() || a.z.empty() || previous < 0) return fail("reader: syntax RDKit rejects");
    // Ring-closure bonds come after the chain bonds, by ring number, and for one number in the
    // order they closed (RDKit keeps them per number until the end of the parse); none may repeat
    // a bond (RDKit rejects that).
    std::stable_sort(closures_.begin(), closures_.end(),
                     [](const ClosureBond& x, const ClosureBond& y) { return x.number < y.number; });
    const int chain_bonds = static_cast<int>(a.bond_begin.size());
    closure_bond_.resize(closures_.size());
    for (const ClosureBond& r : closures_) {
      closure_bond_[r.id] = static_cast<int>(a.bond_begin.size());
      for (size_t k = 0; k < a.bond_begin.size(); ++k) {
        if ((a.bond_begin[k] == r.begin && a.bond_end[k] == r.end) ||
            (a.bond_begin[k] == r.end && a.bond_end[k] == r.begin)) {
          return fail("reader: syntax RDKit rejects");
        }
      }
      if (!add_bond(a.bond_begin, a.bond_end, r.begin, r.end, r.symbol)) return false;
    }
    for (size_t k = 0; k < a.order.size(); ++k) {
      // A double or triple bond written between two aromatic atoms: left to RDKit.
      if (a.order[k] > 1 && a.aromatic[a.bond_begin[k]] && a.aromatic[a.bond_end[k]]) return fail("reader: double or triple bond written between aromatic atoms");
    }
    a.n = static_cast<int>(a.z.size());
    a.m = static_cast<int>(a.bond_begin.size());
    a.degree.assign(a.n, 0);
    for (int k = 0; k < a.m; ++k) {
      ++a.degree[a.bond_begin[k]];
      ++a.degree[a.bond_end[k]];
    }
    return !stereo_ || read_stereo(chain_bonds);
  }

 /// Why the last read declined (a fixed string), null after a read that succeeded.
  const char* why() const { return why_; }

 private:
  /// Notes why the SMILES is declined (for the steps bench's counts); false.
  bool fail(const char* why) {
    why_ = why;
    return false;
  }

  /// False for a direction between two aromatic atoms (RDKit's '/' bond has no written order:
  /// aromatic there; left to RDKit).
  bool add_bond(std::vector<int>& begin, std::vector<int>& end, int i, int j, char symbol) {
    MolArrays& a = *mol_;
    const bool direction = is_direction(symbol);
    if (direction && a.aromatic[i] && a.aromatic[j]) return fail("reader: direction between aromatic atoms");
    begin.push_back(i);
    end.push_back(j);
    const bool aromatic = symbol == 0 && a.aromatic[i] && a.aromatic[j];
    a.bond_aromatic.push_back(aromatic);
    a.order.push_back(symbol == '=' ? 2 : symbol == '#' ? 3 : 1);
    bond_dir_.push_back(symbol == '/' ? 1 : symbol == '\\' ? 2 : 0);
    return true;
  }

  /// The chiral tags and bond directions as RDKit's raw parse leaves them, into *stereo_, once
  /// all bonds are in place (`chain_bonds`: how many bonds are not ring closures). RDKit's
  /// AdjustAtomChiralityFlags (SmilesParseOps.cpp): the tag as written refers to the neighbours in
  /// SMILES order (the bond to the atom before, then the ring closures in the order their digits
  /// are written at the atom, then the bonds to later atoms); the parsed tag refers to the atom's
  /// bonds in bond-index order, so it is inverted where the one order is an odd permutation of the
  /// other, and once more where Canon::chiralAtomNeedsTagInversion holds: degree 3 and either the
  /// first atom of the SMILES with one H ([C@H](F)(Cl)Br: the H is looked down from), or without a
  /// fourth neighbour (no H) with one ring closure and no multiple bond (declined here).
  bool read_stereo(int chain_bonds) {
    const MolArrays& a = *mol_;
    StereoMarks& marks = *stereo_;
    marks.tag.assign(a.n, 0);
    marks.dir.assign(bond_dir_.begin(), bond_dir_.end());
    marks.any = false;
    for (int d : marks.dir) marks.any |= d != 0;
    for (int i = 0; i < a.n; ++i) {
      if (!written_tag_[i]) continue;
      marks.any = true;
      // SMILES order of the atom's bonds: chain bonds sorted by the neighbour's index, with the
      // ring closures at the atom's own place (a chain neighbour before it is the atom before).
      std::vector<int>& order = smiles_order_;
      order.clear();
      int closures = 0;
      for (int k = 0; k < chain_bonds; ++k) {
        if (a.bond_end[k] == i) order.push_back(k);  // the bond from the atom before
      }
      for (const RingEvent& e : ring_events_) {
        if (e.atom != i) continue;
        order.push_back(closure_bond_[e.closure]);
        ++closures;
      }
      for (int k = 0; k < chain_bonds; ++k) {
        if (a.bond_begin[k] == i) order.push_back(k);  // bonds to later atoms, in their order
      }
      const int degree = static_cast<int>(order.size());
      const int hs = a.explicit_hs[i];
      if (degree == 3 && hs != 1 && closures == 1) return fail("reader: tagged degree-3 atom without H, one ring closure");  // RDKit reads unsaturation there
      if (degree == 3 && hs == 1 && fragment_start_[i] && i != 0) return fail("reader: [C@H] starting a later fragment");  // _SmilesStart unclear
      // Parity of the permutation from bond-index order to SMILES order: its inversions.
      int inversions = 0;
      for (int x = 0; x < degree; ++x) {
        for (int y = x + 1; y < degree; ++y) inversions += order[x] > order[y];
      }
      const bool first_with_h = degree == 3 && i == 0 && hs == 1;
      int tag = written_tag_[i];
      if ((inversions + first_with_h) % 2) tag = 3 - tag;
      marks.tag[i] = tag;
    }
    return true;
  }

  void push_atom(int z, bool aromatic, bool bracket, int hs, int charge, int tag = 0) {
    MolArrays& a = *mol_;
    written_tag_.push_back(tag);
    a.z.push_back(z);
    a.aromatic.push_back(aromatic);
    a.no_implicit.push_back(bracket);
    a.explicit_hs.push_back(hs);
    a.charge.push_back(charge);
  }

  /// An atom at s[p], p moved past it.
  bool read_atom(size_t& p) {
    const std::string& s = *s_;
    const size_t length = s.size();
    const char c = s[p];
    if (c != '[') {
      // The organic subset: B C N O P S F Cl Br I, aromatic b c n o p s.
      int z = 0;
      bool aromatic = false;
      const char next = p + 1 < length ? s[p + 1] : 0;
      switch (c) {
        case 'C': z = next == 'l' ? 17 : 6; break;
        case 'B': z = next == 'r' ? 35 : 5; break;
        case 'N': z = 7; break;
        case 'O': z = 8; break;
        case 'P': z = 15; break;
        case 'S': z = 16; break;
        case 'F': z = 9; break;
        case 'I': z = 53; break;
        case 'b': z = 5; aromatic = true; break;
        case 'c': z = 6; aromatic = true; break;
        case 'n': z = 7; aromatic = true; break;
        case 'o': z = 8; aromatic = true; break;
        case 'p': z = 15; aromatic = true; break;
        case 's': z = 16; aromatic = true; break;
        default: return fail("reader: atom outside the organic subset");
      }
      p += (z == 17 || z == 35) ? 2 : 1;
      push_atom(z, aromatic, false, 0, 0);
      return true;
    }
    // [symbol H<n> charge]; no isotope, chirality or atom class (declined).
    ++p;
    if (p >= length) return fail("reader: syntax RDKit rejects");
    int z = 0;
    bool aromatic = false;
    if (is_lower(s[p])) {
      // Aromatic bracket atoms: se, as, te, or b c n o p s.
      if (p + 1 < length && ((s[p] == 's' && s[p + 1] == 'e') || (s[p] == 'a' && s[p + 1] == 's') ||
                             (s[p] == 't' && s[p + 1] == 'e'))) {
        z = s[p] == 's' ? 34 : s[p] == 'a' ? 33 : 52;
        p += 2;
      } else {
        switch (s[p]) {
          case 'b': z = 5; break;
          case 'c': z = 6; break;
          case 'n': z = 7; break;
          case 'o': z = 8; break;
          case 'p': z = 15; break;
          case 's': z = 16; break;
          default: return fail("reader: aromatic bracket atom other than b c n o p s se as te");
        }
        ++p;
      }
      aromatic = true;
    } else if (s[p] >= 'A' && s[p] <= 'Z') {
      // The longest element symbol: "[Sc]" is scandium, "[Co]" cobalt.
      if (p + 1 < length && is_lower(s[p + 1])) z = element_number(&s[p], 2);
      if (z) {
        p += 2;
      } else {
        z = element_number(&s[p], 1);
        ++p;
      }
      if (!z) return fail("reader: unknown element symbol");
    } else {
      return fail("reader: isotope or '*' in brackets");  // isotope, '*', ...
    }
    if (z == 1) return fail("reader: H atom");  // hydrogen atoms: RDKit's removeHs decides what becomes of them
    // '@' is CHI_TETRAHEDRAL_CCW, '@@' CHI_TETRAHEDRAL_CW as written (before AdjustAtomChiralityFlags);
    // '@TH1', '@SP', '@OH' ... are left to RDKit.
    int tag = 0;
    if (p < length && s[p] == '@') {
      if (!stereo_) return fail("reader: stereo marks not asked for");
      ++p;
      tag = 2;
      if (p < length && s[p] == '@') {
        ++p;
        tag = 1;
      }
      if (p >= length || (s[p] != 'H' && s[p] != '+' && s[p] != '-' && s[p] != ']')) return fail("reader: '@' form other than '@' '@@'");
    }
    int hs = 0;
    if (p < length && s[p] == 'H') {
      ++p;
      hs = 1;
      if (p < length && is_digit(s[p])) hs = s[p++] - '0';
    }
    int charge = 0;
    if (p < length && (s[p] == '+' || s[p] == '-')) {
      const char sign = s[p++];
      int magnitude = 1;
      if (p < length && is_digit(s[p])) {
        magnitude = s[p++] - '0';
        if (p < length && is_digit(s[p])) return fail("reader: charge of two digits");
      } else {
        // '+' and '++' (RDKit's parser takes no longer runs of signs).
        if (p < length && s[p] == sign) {
          magnitude = 2;
          ++p;
          if (p < length && s[p] == sign) return fail("reader: charge written +++ or ---");
        }
      }
      charge = sign == '+' ? magnitude : -magnitude;
    }
    if (p >= length || s[p] != ']') return fail("reader: atom class or other bracket content");
    ++p;
    push_atom(z, aromatic, true, hs, charge, tag);
    return true;
  }

  const char* why_ = nullptr;
  const std::string* s_ = nullptr;
  MolArrays* mol_ = nullptr;
  StereoMarks* stereo_ = nullptr;
  std::vector<int> written_tag_, bond_dir_, closure_bond_, smiles_order_;
  std::vector<char> fragment_start_;
  std::vector<RingEvent> ring_events_;
  OpenRing rings_[100];
  std::vector<ClosureBond> closures_;
  std::vector<int> branches_;
};

}  // namespace

bool read_smiles_arrays(const std::string& smiles, MolArrays& mol, StereoMarks* stereo, const char** why) {
  // The reader's vectors are reused from call to call on the same thread.
  Reader& reader = thread_scratch<Reader>();
  const bool read = reader.read(smiles, mol, stereo);
  if (why) *why = reader.why();
  return read;
}

}  // namespace sampan::helix
