//! The named techniques, in the order a person (and the solver) tries them, each with its grade and the points
//! it adds to a puzzle's score.
//!
//! Grades and points follow HoDoKu's published defaults (its five grades, a technique's grade, a score that
//! pushes a puzzle up a grade past 800, 1000, 1600 and 1800 points), so that a Forkboard grade means what a
//! HoDoKu grade means; `scripts/rate-against-hodoku.sh` measures how often the two agree.

use std::fmt;

/// How hard a puzzle (or a technique) is: HoDoKu's five grades, then one for puzzles no technique here
/// finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grade {
    /// Singles only.
    Easy,
    /// Locked candidates, pairs and triples.
    Medium,
    /// Quads, basic fish, single-digit patterns, wings, colouring.
    Hard,
    /// Chains.
    Unfair,
    /// Forcing chains: suppositions followed to a contradiction.
    Extreme,
    /// No technique applies somewhere on the way: the search has to guess.
    NeedsGuessing,
}

impl Grade {
    /// Every grade, easiest first.
    pub const ALL: [Grade; 6] = [
        Grade::Easy,
        Grade::Medium,
        Grade::Hard,
        Grade::Unfair,
        Grade::Extreme,
        Grade::NeedsGuessing,
    ];

    /// The grade's name as the command line and the page print it.
    pub fn name(self) -> &'static str {
        match self {
            Grade::Easy => "Easy",
            Grade::Medium => "Medium",
            Grade::Hard => "Hard",
            Grade::Unfair => "Unfair",
            Grade::Extreme => "Extreme",
            Grade::NeedsGuessing => "Needs guessing",
        }
    }

    /// The most points a puzzle of this grade may score before it counts as the next grade.
    pub fn max_score(self) -> u32 {
        match self {
            Grade::Easy => 800,
            Grade::Medium => 1000,
            Grade::Hard => 1600,
            Grade::Unfair => 1800,
            Grade::Extreme | Grade::NeedsGuessing => u32::MAX,
        }
    }

    /// A grade from its name (any case, spaces or dashes alike: `easy`, `needs-guessing`).
    pub fn parse(text: &str) -> Option<Self> {
        let wanted = text.trim().to_ascii_lowercase().replace(['-', '_'], " ");
        Self::ALL
            .into_iter()
            .find(|g| g.name().to_ascii_lowercase() == wanted)
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A named technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Technique {
    /// The last empty cell of a unit.
    FullHouse,
    /// A cell with one candidate left.
    NakedSingle,
    /// A digit with one place left in a unit.
    HiddenSingle,
    /// A naked pair inside one box and one line, cleared from both.
    LockedPair,
    /// A naked triple inside one box and one line, cleared from both.
    LockedTriple,
    /// A box's digit confined to one line: cleared from the rest of the line.
    Pointing,
    /// A line's digit confined to one box: cleared from the rest of the box.
    Claiming,
    /// Two cells of a unit holding only the same two digits.
    NakedPair,
    /// Three cells of a unit holding only three digits among them.
    NakedTriple,
    /// Two digits of a unit with only the same two places.
    HiddenPair,
    /// Three digits of a unit with only three places among them.
    HiddenTriple,
    /// Four cells of a unit holding only four digits among them.
    NakedQuad,
    /// Four digits of a unit with only four places among them.
    HiddenQuad,
    /// A digit confined to the same two columns in two rows (or rows in two columns).
    XWing,
    /// The same with three lines.
    Swordfish,
    /// The same with four lines.
    Jellyfish,
    /// A chain of cells holding the same two digits, each seeing the next.
    RemotePair,
    /// Every unsolved cell holds two candidates but one: its digit seen three times in its row is true.
    BugPlusOne,
    /// Two strong links of a digit in parallel lines, joined at one end by a third line.
    Skyscraper,
    /// A strong link in a row and one in a column, joined in a box.
    TwoStringKite,
    /// Two strong links of a digit joined by a weak one, of any other shape.
    TurbotFish,
    /// A box whose candidates for a digit lie on one row and one column, with a strong link outside it.
    EmptyRectangle,
    /// Two cells holding the same two digits, joined by a strong link of one of them.
    WWing,
    /// A two-digit pivot with two two-digit wings sharing a third digit.
    XYWing,
    /// A three-digit pivot with two two-digit wings.
    XYZWing,
    /// Three corners of a rectangle hold only the same two digits: the fourth holds neither.
    UniqueRectangle1,
    /// Two corners of a rectangle hold the same two digits and one same extra: one of them is the extra.
    UniqueRectangle2,
    /// Two corners hold the pair plus others, and one pair digit is locked in them: the other digit goes.
    UniqueRectangle4,
    /// A digit's strong links coloured in two colours: one colour is the digit's.
    SimpleColouring,
    /// An X-Wing with extra candidates (the fin) in one box: what sees the fin and lies in a cover line goes.
    FinnedXWing,
    /// A finned X-Wing missing one of its corners.
    SashimiXWing,
    /// An alternating chain of one digit's strong and weak links.
    XChain,
    /// A chain of two-digit cells, each passing a digit on to the next.
    XYChain,
    /// An alternating inference chain over any candidates.
    Aic,
    /// A candidate whose consequences (the singles it forces) end in a contradiction.
    ForcingChain,
    /// No technique here applies: one cell is filled from the search's solution.
    Guess,
}

impl Technique {
    /// Every technique in the order the solver tries them (HoDoKu's order, where it has the technique).
    pub const ORDER: [Technique; 36] = [
        Technique::FullHouse,
        Technique::NakedSingle,
        Technique::HiddenSingle,
        Technique::LockedPair,
        Technique::LockedTriple,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::NakedTriple,
        Technique::HiddenPair,
        Technique::HiddenTriple,
        Technique::NakedQuad,
        Technique::HiddenQuad,
        Technique::XWing,
        Technique::Swordfish,
        Technique::Jellyfish,
        Technique::RemotePair,
        Technique::BugPlusOne,
        Technique::Skyscraper,
        Technique::TwoStringKite,
        Technique::TurbotFish,
        Technique::EmptyRectangle,
        Technique::WWing,
        Technique::XYWing,
        Technique::XYZWing,
        Technique::UniqueRectangle1,
        Technique::UniqueRectangle2,
        Technique::UniqueRectangle4,
        Technique::SimpleColouring,
        Technique::FinnedXWing,
        Technique::SashimiXWing,
        Technique::XChain,
        Technique::XYChain,
        Technique::Aic,
        Technique::ForcingChain,
        Technique::Guess,
    ];

    /// The technique's name, as SudokuWiki and HoDoKu spell it.
    pub fn name(self) -> &'static str {
        match self {
            Technique::FullHouse => "Full house",
            Technique::NakedSingle => "Naked single",
            Technique::HiddenSingle => "Hidden single",
            Technique::LockedPair => "Locked pair",
            Technique::LockedTriple => "Locked triple",
            Technique::Pointing => "Locked candidates (pointing)",
            Technique::Claiming => "Locked candidates (claiming)",
            Technique::NakedPair => "Naked pair",
            Technique::NakedTriple => "Naked triple",
            Technique::HiddenPair => "Hidden pair",
            Technique::HiddenTriple => "Hidden triple",
            Technique::NakedQuad => "Naked quad",
            Technique::HiddenQuad => "Hidden quad",
            Technique::XWing => "X-Wing",
            Technique::Swordfish => "Swordfish",
            Technique::Jellyfish => "Jellyfish",
            Technique::RemotePair => "Remote pair",
            Technique::BugPlusOne => "BUG+1",
            Technique::UniqueRectangle1 => "Unique rectangle type 1",
            Technique::UniqueRectangle2 => "Unique rectangle type 2",
            Technique::UniqueRectangle4 => "Unique rectangle type 4",
            Technique::FinnedXWing => "Finned X-Wing",
            Technique::SashimiXWing => "Sashimi X-Wing",
            Technique::Skyscraper => "Skyscraper",
            Technique::TwoStringKite => "2-String Kite",
            Technique::TurbotFish => "Turbot fish",
            Technique::EmptyRectangle => "Empty rectangle",
            Technique::WWing => "W-Wing",
            Technique::XYWing => "XY-Wing",
            Technique::XYZWing => "XYZ-Wing",
            Technique::SimpleColouring => "Simple colouring",
            Technique::XChain => "X-Chain",
            Technique::XYChain => "XY-Chain",
            Technique::Aic => "Alternating inference chain",
            Technique::ForcingChain => "Forcing chain",
            Technique::Guess => "Guess",
        }
    }

    /// The grade a puzzle needing this technique has at least.
    pub fn grade(self) -> Grade {
        use Technique::*;
        match self {
            FullHouse | NakedSingle | HiddenSingle => Grade::Easy,
            LockedPair | LockedTriple | Pointing | Claiming | NakedPair | NakedTriple
            | HiddenPair | HiddenTriple => Grade::Medium,
            NakedQuad | HiddenQuad | XWing | Swordfish | Jellyfish | RemotePair | Skyscraper
            | TwoStringKite | TurbotFish | EmptyRectangle | WWing | XYWing | XYZWing
            | SimpleColouring | BugPlusOne | UniqueRectangle1 | UniqueRectangle2
            | UniqueRectangle4 | FinnedXWing | SashimiXWing => Grade::Hard,
            XChain | XYChain | Aic => Grade::Unfair,
            ForcingChain => Grade::Extreme,
            Guess => Grade::NeedsGuessing,
        }
    }

    /// The points one use of the technique adds to a puzzle's score.
    pub fn score(self) -> u32 {
        use Technique::*;
        match self {
            FullHouse | NakedSingle => 4,
            HiddenSingle => 14,
            LockedPair => 40,
            LockedTriple | NakedPair => 60,
            Pointing | Claiming => 50,
            NakedTriple => 80,
            HiddenPair => 70,
            HiddenTriple => 100,
            NakedQuad => 120,
            HiddenQuad => 150,
            XWing => 140,
            Swordfish => 150,
            Jellyfish => 160,
            RemotePair => 110,
            BugPlusOne | UniqueRectangle1 | UniqueRectangle2 | UniqueRectangle4 => 100,
            FinnedXWing => 130,
            SashimiXWing => 150,
            Skyscraper => 130,
            TwoStringKite | WWing | SimpleColouring => 150,
            TurbotFish | EmptyRectangle => 120,
            XYWing => 160,
            XYZWing => 180,
            XChain | XYChain => 260,
            Aic => 280,
            ForcingChain => 500,
            Guess => 10_000,
        }
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_lists_every_technique_once_easiest_grades_first() {
        for (i, t) in Technique::ORDER.iter().enumerate() {
            assert!(!Technique::ORDER[..i].contains(t), "{t} twice");
        }
        for w in Technique::ORDER.windows(2) {
            assert!(w[0].grade() <= w[1].grade(), "{} before {}", w[0], w[1]);
        }
    }

    #[test]
    fn grades_parse_from_their_names() {
        for g in Grade::ALL {
            assert_eq!(Grade::parse(g.name()), Some(g));
        }
        assert_eq!(Grade::parse("needs-guessing"), Some(Grade::NeedsGuessing));
        assert_eq!(Grade::parse("HARD"), Some(Grade::Hard));
        assert_eq!(Grade::parse("fiendish"), None);
    }
}
