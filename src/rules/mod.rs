//! Rule sets: the options of `RULES.md` section 3 as a runtime value.
//!
//! A rule set is written `PRESET[,key=value...]`, e.g. `standard`,
//! `standard,flying=off`, `standard,stones=7,protection=none`. Every rule
//! set has one canonical text ([`Rules::canonical`]) naming every option, so
//! equal rules always print the same string (used in table headers), and a
//! short name ([`Rules::short_name`]) listing only what differs from its
//! preset (used for directory names).

use crate::geometry::Board;
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

/// A complete rule set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// Board layout.
    pub board: &'static str,
    /// Stones per side (all in hand at the start).
    pub stones: u8,
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

/// Named rule sets; the first is the default.
pub const PRESETS: &[(&str, Rules)] = &[("standard", Rules::STANDARD), ("lasker", Rules::LASKER)];

impl Default for Rules {
    fn default() -> Self {
        Rules::STANDARD
    }
}

impl Rules {
    /// Gasser's rule set: 9 stones, flying at 3, standard protection.
    pub const STANDARD: Rules = Rules {
        board: "standard",
        stones: 9,
        flying: Flying::AtMost(3),
        protection: Protection::Standard,
        removals_per_mill: 1,
        double_mill: DoubleMill::One,
        lasker: false,
    };

    /// Lasker morris: 10 stones, sliding allowed while stones are in hand.
    pub const LASKER: Rules = Rules {
        stones: 10,
        lasker: true,
        ..Rules::STANDARD
    };

    /// The board of this rule set.
    pub fn board(&self) -> &'static Board {
        Board::by_name(self.board).expect("rule sets only name known boards")
    }

    /// The rule set whose moving-phase tables serve this one. The moving
    /// phase does not depend on the stone count (beyond which subspaces
    /// exist) or on moving during placing, so `standard,stones=N` for every
    /// N up to 9 shares the tables of `standard`.
    pub fn moving_rules(&self) -> Rules {
        Rules {
            stones: self.stones.max(Rules::STANDARD.stones),
            lasker: false,
            ..*self
        }
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

    fn options(&self) -> [(&'static str, String); 7] {
        [
            ("board", self.board.to_string()),
            ("stones", self.stones.to_string()),
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

    fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let bad = |expected: &str| {
            Err(RulesError(format!(
                "`{key}={value}`: expected {key}={expected}"
            )))
        };
        match key {
            "board" => match Board::by_name(value) {
                Some(b) => self.board = b.name,
                None => return bad("standard (other boards are not supported yet)"),
            },
            "stones" => match value.parse::<u8>() {
                Ok(n) if (3..=12).contains(&n) => self.stones = n,
                _ => return bad("3..12"),
            },
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
            _ => {
                return Err(RulesError(format!(
                    "unknown option `{key}` (known: board, stones, flying, protection, removals, double-mill, lasker)"
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
        for part in rest {
            let Some((k, v)) = part.split_once('=') else {
                return Err(RulesError(format!(
                    "`{part}`: expected key=value after the preset"
                )));
            };
            rules.set(k.trim(), v.trim())?;
        }
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_presets_and_overrides() {
        assert_eq!("standard".parse::<Rules>().unwrap(), Rules::STANDARD);
        let r: Rules = "standard,flying=off".parse().unwrap();
        assert_eq!(r.flying, Flying::Off);
        let r: Rules = "standard,stones=7,protection=none".parse().unwrap();
        assert_eq!((r.stones, r.protection), (7, Protection::None));
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
            "board=standard,stones=9,flying=3,protection=standard,removals=1,double-mill=one,lasker=off"
        );
    }

    #[test]
    fn bad_specs_are_refused() {
        for bad in [
            "nine",
            "standard,flying=5",
            "standard,stones=2",
            "standard,colour=red",
            "standard,flying",
        ] {
            let e = bad.parse::<Rules>().unwrap_err().to_string();
            assert!(e.starts_with("invalid rule set"), "{bad}: {e}");
        }
    }
}
