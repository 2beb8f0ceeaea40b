//! Rule sets: the options of `docs/RULES.md` sections 3 and 4 as a runtime value.
//!
//! A rule set is written `PRESET[,key=value...]`, e.g. `standard`,
//! `standard,flying=off`, `standard,stones=7,protection=none`. Every rule
//! set has one canonical text ([`Rules::canonical`]) naming every option, so
//! equal rules always print the same string (used in table headers), and a
//! short name ([`Rules::short_name`]) listing only what differs from its
//! preset (used for directory names).

use crate::color::{ByColor, Color};
use crate::error::ParseError;
use crate::geometry::{Board, PointSet};
use std::fmt;
use std::str::FromStr;

/// When a side with no stones in hand may fly (move to any empty point).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Flying {
    /// Never.
    Off,
    /// With at most this many stones on the board (3 standard, 4 "early").
    AtMost(u8),
}

/// Which opponent stones a closed mill may remove.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Protection {
    /// Stones in mills are protected unless all of them are in mills.
    Standard,
    /// Any stone may be taken.
    None,
    /// Stones in mills are never taken; the removal lapses if all are.
    Strict,
}

/// How many removals a move that closes two mills at once earns.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DoubleMill {
    /// As for one mill.
    One,
    /// One round of removals per mill closed.
    PerMill,
}

/// What a full board after the last placement means (`full-board=`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FullBoard {
    /// The side to move is blocked and loses (the standard rule).
    Loss,
    /// The game is drawn (twelve men's morris).
    Draw,
}

/// What closing a mill does (`mill=`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MillRule {
    /// The mover removes opponent stones (every mill game but three men's).
    Removes,
    /// The mover wins at once (three men's morris); nothing is removed.
    Wins,
}

/// A complete rule set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// Board layout.
    pub board: &'static str,
    /// Stones of each side, all in hand at the start (`stones=W/B`).
    pub stones: ByColor<u8>,
    /// Flying.
    pub flying: Flying,
    /// Mill protection.
    pub protection: Protection,
    /// Opponent stones removed per closed mill (1 or 2).
    pub removals_per_mill: u8,
    /// Removals when two mills close at once.
    pub double_mill: DoubleMill,
    /// Lasker: a side with stones in hand may slide instead of placing.
    pub lasker: bool,
    /// A full board after the last placement: loss or draw.
    pub full_board: FullBoard,
    /// Closing a mill removes stones or wins.
    pub mill: MillRule,
    /// The N-move rule: a draw after this many plies of the moving phase
    /// without a mill (docs/RULES.md section 5); `None`: off.
    pub nmove: Option<u16>,
}

/// Why a rule-set text was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RulesError(pub String);

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid rule set: {}", self.0)
    }
}

impl std::error::Error for RulesError {}

impl From<RulesError> for ParseError {
    fn from(e: RulesError) -> Self {
        ParseError::Rules(e.to_string())
    }
}

/// Named rule sets; the first is the default.
pub const PRESETS: &[(&str, Rules)] = &[
    ("standard", Rules::STANDARD),
    ("lasker", Rules::LASKER),
    ("twelve", Rules::TWELVE),
    ("six", Rules::SIX),
    ("three", Rules::THREE),
];

/// Both sides with `n` stones.
const fn both(n: u8) -> ByColor<u8> {
    ByColor { white: n, black: n }
}

impl Default for Rules {
    fn default() -> Self {
        Rules::STANDARD
    }
}

impl Rules {
    /// Gasser's rule set: 9 stones, flying at 3, standard protection.
    pub const STANDARD: Rules = Rules {
        board: "standard",
        stones: both(9),
        flying: Flying::AtMost(3),
        protection: Protection::Standard,
        removals_per_mill: 1,
        double_mill: DoubleMill::One,
        lasker: false,
        full_board: FullBoard::Loss,
        mill: MillRule::Removes,
        nmove: None,
    };

    /// Lasker morris: 10 stones, sliding allowed while stones are in hand.
    pub const LASKER: Rules = Rules {
        stones: both(10),
        lasker: true,
        ..Rules::STANDARD
    };

    /// Twelve men's morris (Morabaraba's board): diagonals, 12 stones, a
    /// full board after placing is a draw.
    pub const TWELVE: Rules = Rules {
        board: "diagonals",
        stones: both(12),
        full_board: FullBoard::Draw,
        ..Rules::STANDARD
    };

    /// Six men's morris: two squares, 6 stones, no flying.
    pub const SIX: Rules = Rules {
        board: "six",
        stones: both(6),
        flying: Flying::Off,
        ..Rules::STANDARD
    };

    /// Three men's morris: 3x3 grid, 3 stones, no flying, a line wins.
    pub const THREE: Rules = Rules {
        board: "three",
        stones: both(3),
        flying: Flying::Off,
        mill: MillRule::Wins,
        ..Rules::STANDARD
    };

    /// Stones of side `c` (all in hand at the start).
    pub fn stones_of(&self, c: Color) -> u8 {
        self.stones[c]
    }

    /// The larger of the two sides' stone counts.
    pub fn max_stones(&self) -> u8 {
        self.stones.white.max(self.stones.black)
    }

    /// Whether closing a mill wins the game at once.
    pub fn mill_wins(&self) -> bool {
        self.mill == MillRule::Wins
    }

    /// The stones each side has in the preset of this rule set's board:
    /// the largest game on the board, whose moving-phase tables serve the
    /// smaller ones.
    fn board_stones(&self) -> u8 {
        PRESETS
            .iter()
            .filter(|(_, p)| p.board == self.board)
            .map(|(_, p)| p.max_stones())
            .min()
            .unwrap_or(self.max_stones())
    }

    /// The board of this rule set.
    pub fn board(&self) -> &'static Board {
        Board::by_name(self.board).expect("rule sets only name known boards")
    }

    /// The rule set whose tables serve this one: the same rules with the
    /// board's preset stone count (9 on the standard board, 12 on the
    /// diagonals board), or the game's own when it is larger (so `lasker`,
    /// with 10, has a folder of its own). A position's value depends on its
    /// stones on the board and in hand, never on the count the game
    /// started with, so `standard,stones=N` (or `W/B`) for every count up to
    /// 9 shares the tables of `standard`, and every game on the diagonals
    /// board up to 12 those of `twelve`.
    pub fn family_rules(&self) -> Rules {
        Rules {
            stones: both(self.max_stones().max(self.board_stones())),
            ..*self
        }
    }

    /// The rule set whose moving-phase tables serve this one: the family
    /// ([`Rules::family_rules`]) without Lasker moves, which only matter
    /// while stones are in hand.
    pub fn moving_rules(&self) -> Rules {
        Rules {
            lasker: false,
            ..self.family_rules()
        }
    }

    /// The moving-phase rule set of the board's preset stone count with
    /// these options ([`Rules::moving_rules`] of it): its folder holds the
    /// tables that a game with more stones (10 on the standard board)
    /// shares with it, value for value.
    pub fn preset_moving_rules(&self) -> Rules {
        Rules {
            stones: both(self.board_stones()),
            ..*self
        }
        .moving_rules()
    }

    /// Whether a side with `on_board` stones and none in hand flies.
    #[inline]
    pub fn flies(&self, on_board: u32) -> bool {
        match self.flying {
            Flying::Off => false,
            Flying::AtMost(n) => on_board <= n as u32,
        }
    }

    /// The preset this rule set is closest to (fewest differing options).
    fn nearest_preset(&self) -> &'static str {
        PRESETS
            .iter()
            .min_by_key(|(_, p)| self.differences(p).len())
            .map(|(n, _)| *n)
            .expect("presets are not empty")
    }

    /// The same rules without the N-move rule: the pure game.
    pub fn pure(&self) -> Rules {
        Rules {
            nmove: None,
            ..*self
        }
    }

    /// Most plies of an N-move rule (`nmove=N`).
    pub const MAX_NMOVE: u16 = 1000;

    fn options(&self) -> [(&'static str, String); 10] {
        let stones = if self.stones.white == self.stones.black {
            self.stones.white.to_string()
        } else {
            format!("{}/{}", self.stones.white, self.stones.black)
        };
        [
            ("board", self.board.to_string()),
            ("stones", stones),
            (
                "flying",
                match self.flying {
                    Flying::Off => "off".to_string(),
                    Flying::AtMost(n) => n.to_string(),
                },
            ),
            (
                "protection",
                match self.protection {
                    Protection::Standard => "standard",
                    Protection::None => "none",
                    Protection::Strict => "strict",
                }
                .to_string(),
            ),
            ("removals", self.removals_per_mill.to_string()),
            (
                "double-mill",
                match self.double_mill {
                    DoubleMill::One => "one",
                    DoubleMill::PerMill => "per-mill",
                }
                .to_string(),
            ),
            ("lasker", if self.lasker { "on" } else { "off" }.to_string()),
            (
                "full-board",
                match self.full_board {
                    FullBoard::Loss => "loss",
                    FullBoard::Draw => "draw",
                }
                .to_string(),
            ),
            (
                "mill",
                match self.mill {
                    MillRule::Removes => "removes",
                    MillRule::Wins => "wins",
                }
                .to_string(),
            ),
            (
                "nmove",
                self.nmove.map_or("off".to_string(), |n| n.to_string()),
            ),
        ]
    }

    fn differences(&self, other: &Rules) -> Vec<String> {
        self.options()
            .iter()
            .zip(other.options().iter())
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, _)| format!("{}={}", a.0, a.1))
            .collect()
    }

    /// Every option spelled out, in a fixed order: the same rules always
    /// give the same string.
    pub fn canonical(&self) -> String {
        self.options()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The nearest preset plus the options that differ from it, e.g.
    /// `standard` or `standard,flying=off`.
    pub fn short_name(&self) -> String {
        let preset = self.nearest_preset();
        let base = PRESETS.iter().find(|(n, _)| *n == preset).unwrap().1;
        let mut parts = vec![preset.to_string()];
        parts.extend(self.differences(&base));
        parts.join(",")
    }

    /// The name of the rule set's table folder: the short name, with the
    /// `/` of unequal hands written `-` (`standard,stones=5-3`).
    pub fn folder_name(&self) -> String {
        self.short_name().replace('/', "-")
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let bad = |expected: &str| {
            Err(RulesError(format!(
                "`{key}={value}`: expected {key}={expected}"
            )))
        };
        match key {
            "board" => match Board::by_name(value) {
                Some(b) => self.board = b.name,
                None => return bad(&Board::NAMES.join("|")),
            },
            "stones" => {
                let count = |s: &str| {
                    s.bytes()
                        .all(|b| b.is_ascii_digit())
                        .then(|| s.parse::<u8>().ok())
                        .flatten()
                        .filter(|n| (3..=12).contains(n))
                };
                let parsed = match value.split_once('/') {
                    None => count(value).map(both),
                    Some((w, b)) => count(w)
                        .zip(count(b))
                        .map(|(white, black)| ByColor { white, black }),
                };
                match parsed {
                    Some(s) => self.stones = s,
                    None => return bad("N or W/B, each 3..12"),
                }
            }
            "flying" => {
                self.flying = match value {
                    "off" => Flying::Off,
                    "3" | "on" => Flying::AtMost(3),
                    "4" => Flying::AtMost(4),
                    _ => return bad("3|4|off"),
                }
            }
            "protection" => {
                self.protection = match value {
                    "standard" => Protection::Standard,
                    "none" => Protection::None,
                    "strict" => Protection::Strict,
                    _ => return bad("standard|none|strict"),
                }
            }
            "removals" => match value {
                "1" | "2" => self.removals_per_mill = value.parse().unwrap(),
                _ => return bad("1|2"),
            },
            "double-mill" => {
                self.double_mill = match value {
                    "one" => DoubleMill::One,
                    "per-mill" => DoubleMill::PerMill,
                    _ => return bad("one|per-mill"),
                }
            }
            "lasker" => {
                self.lasker = match value {
                    "on" => true,
                    "off" => false,
                    _ => return bad("on|off"),
                }
            }
            "full-board" => {
                self.full_board = match value {
                    "loss" => FullBoard::Loss,
                    "draw" => FullBoard::Draw,
                    _ => return bad("loss|draw"),
                }
            }
            "nmove" => {
                self.nmove = match value {
                    "off" => None,
                    n => match n.parse::<u16>() {
                        Ok(n) if n.to_string() == value && (1..=Rules::MAX_NMOVE).contains(&n) => {
                            Some(n)
                        }
                        _ => return bad("off or a number of plies, 1..1000"),
                    },
                }
            }
            "mill" => {
                self.mill = match value {
                    "removes" => MillRule::Removes,
                    "wins" => MillRule::Wins,
                    _ => return bad("removes|wins"),
                }
            }
            _ => {
                return Err(RulesError(format!(
                    "unknown option `{key}` (known: board, stones, flying, protection, removals, double-mill, lasker, full-board, mill, nmove)"
                )));
            }
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = RulesError;

    /// Parses `PRESET[,key=value...]`; a text starting with `key=` starts
    /// from `standard`, so canonical texts parse back.
    fn from_str(s: &str) -> Result<Rules, RulesError> {
        let rules = Rules::parse_family(s)?;
        let size = rules.board().size;
        if (rules.stones.white + rules.stones.black) > size {
            return Err(RulesError(format!(
                "{} and {} stones do not fit on the {} points of board {}",
                rules.stones.white, rules.stones.black, size, rules.board
            )));
        }
        Ok(rules)
    }
}

impl Rules {
    /// Whether `other` is these rules but for the stone count the game
    /// starts with, which changes no value of a subspace both games have:
    /// tables of one are tables of the other (the 9-stone moving phase
    /// serves the 10-stone game).
    pub fn same_but_stones(&self, other: &Rules) -> bool {
        Rules {
            stones: self.stones,
            ..*other
        } == *self
    }

    /// Whether a table whose header names the rule text `header` serves
    /// these rules ([`Rules::same_but_stones`]; compared as rule sets, so a
    /// header written before an option existed, leaving out its default,
    /// still matches).
    pub fn takes_tables_of(&self, header: &str) -> bool {
        Rules::parse_family(header).is_ok_and(|r| self.same_but_stones(&r))
    }

    /// Parses a rule text like [`FromStr`] but without requiring both
    /// hands to fit on the board together: the text of a table family
    /// ([`Rules::family_rules`]), as table headers carry it, gives both
    /// sides the larger hand of its games (`three,stones=5/4` and `4/5`
    /// share the family `stones=5`, 10 stones on 9 points).
    pub fn parse_family(s: &str) -> Result<Rules, RulesError> {
        let mut parts = s.split(',').map(str::trim);
        let first = parts.next().unwrap_or("");
        let mut rules;
        let mut rest: Vec<&str> = parts.collect();
        if first.contains('=') {
            rules = Rules::STANDARD;
            rest.insert(0, first);
        } else {
            rules = match PRESETS.iter().find(|(n, _)| *n == first) {
                Some((_, r)) => *r,
                None => {
                    let names: Vec<_> = PRESETS.iter().map(|(n, _)| *n).collect();
                    return Err(RulesError(format!(
                        "unknown preset `{first}` (known: {})",
                        names.join(", ")
                    )));
                }
            };
        }
        let mut seen = Vec::new();
        for part in rest {
            let Some((k, v)) = part.split_once('=') else {
                return Err(RulesError(format!(
                    "`{part}`: expected key=value after the preset"
                )));
            };
            let k = k.trim();
            if seen.contains(&k) {
                return Err(RulesError(format!("option `{k}` is given twice")));
            }
            seen.push(k);
            rules.set(k, v.trim())?;
        }
        if rules.nmove.is_some() && rules.protection == Protection::Strict {
            return Err(RulesError(
                "nmove with protection=strict is not supported yet: a mill whose removal \
                 lapses resets the counter without leaving the stone counts"
                    .into(),
            ));
        }
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short_name())
    }
}

/// Whether the game is over because the side not to move, `last_mover`,
/// has a full line under `mill=wins` (the side to move has lost).
#[inline]
pub fn mill_ended(board: &Board, rules: &Rules, last_mover: PointSet) -> bool {
    rules.mill_wins() && board.has_mill(last_mover)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_is_given_once_and_numbers_are_plain() {
        for (text, needle) in [
            ("standard,stones=5,stones=7", "given twice"),
            ("standard,nmove=30,nmove=50", "given twice"),
            ("standard,stones=+5", "expected stones="),
            ("standard,nmove=+30", "expected nmove="),
            ("standard,nmove=030", "expected nmove="),
        ] {
            let e = text.parse::<Rules>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        assert!("standard,stones=5/3,nmove=30".parse::<Rules>().is_ok());
    }

    #[test]
    fn presets_and_new_options() {
        let t: Rules = "twelve".parse().unwrap();
        assert_eq!(
            (t.board, t.stones, t.full_board),
            ("diagonals", both(12), FullBoard::Draw)
        );
        assert_eq!(t.short_name(), "twelve");
        assert_eq!("three".parse::<Rules>().unwrap().mill, MillRule::Wins);
        assert_eq!("six".parse::<Rules>().unwrap().flying, Flying::Off);
        let u: Rules = "standard,stones=5/3".parse().unwrap();
        assert_eq!(u.stones, ByColor { white: 5, black: 3 });
        assert_eq!(u.short_name(), "standard,stones=5/3");
        assert_eq!(u.folder_name(), "standard,stones=5-3");
        assert_eq!(u.canonical().parse::<Rules>().unwrap(), u);
        assert_eq!(
            "standard,stones=4/4".parse::<Rules>().unwrap().stones,
            both(4)
        );
        // The moving phase is shared by every stone count of a board.
        assert_eq!(u.moving_rules(), Rules::STANDARD);
        let small: Rules = "twelve,stones=4/3".parse().unwrap();
        assert_eq!(small.moving_rules(), Rules::TWELVE);
        assert_eq!(
            "six,stones=4".parse::<Rules>().unwrap().moving_rules(),
            Rules::SIX
        );
        let n: Rules = "standard,nmove=50".parse().unwrap();
        assert_eq!(n.nmove, Some(50));
        assert_eq!(n.short_name(), "standard,nmove=50");
        assert_eq!(n.pure(), Rules::STANDARD);
        let small: Rules = "standard,stones=5,nmove=30".parse().unwrap();
        assert_eq!(small.moving_rules().nmove, Some(30));
        assert_eq!(
            "standard,board=diagonals"
                .parse::<Rules>()
                .unwrap()
                .short_name(),
            "standard,board=diagonals"
        );
    }

    #[test]
    fn parse_presets_and_overrides() {
        assert_eq!("standard".parse::<Rules>().unwrap(), Rules::STANDARD);
        let r: Rules = "standard,flying=off".parse().unwrap();
        assert_eq!(r.flying, Flying::Off);
        let r: Rules = "standard,stones=7,protection=none".parse().unwrap();
        assert_eq!((r.stones, r.protection), (both(7), Protection::None));
        assert_eq!(r.short_name(), "standard,stones=7,protection=none");
        assert_eq!("lasker".parse::<Rules>().unwrap().short_name(), "lasker");
    }

    #[test]
    fn canonical_round_trips_and_is_stable() {
        let a: Rules = "standard,protection=none,stones=7".parse().unwrap();
        let b: Rules = "standard,stones=7,protection=none".parse().unwrap();
        assert_eq!(a.canonical(), b.canonical());
        assert_eq!(a.canonical().parse::<Rules>().unwrap(), a);
        assert_eq!(
            Rules::STANDARD.canonical(),
            "board=standard,stones=9,flying=3,protection=standard,removals=1,double-mill=one,lasker=off,full-board=loss,mill=removes,nmove=off"
        );
        // Tables made before `full-board` and `mill` existed name the defaults.
        let old = "board=standard,stones=9,flying=3,protection=standard,removals=1,double-mill=one,lasker=off";
        assert_eq!(old.parse::<Rules>().unwrap(), Rules::STANDARD);
    }

    #[test]
    fn bad_specs_are_refused() {
        for bad in [
            "nine",
            "standard,flying=5",
            "standard,stones=2",
            "standard,colour=red",
            "standard,flying",
            "standard,board=hex",
            "standard,stones=5/2",
            "six,stones=9",
            "three,stones=5/5",
            "standard,mill=maybe",
            "standard,full-board=win",
            "standard,nmove=0",
            "standard,nmove=-3",
            "standard,nmove=fifty",
        ] {
            let e = bad.parse::<Rules>().unwrap_err().to_string();
            assert!(e.starts_with("invalid rule set"), "{bad}: {e}");
        }
    }
}
