//! Sanmill's `setoption`s and the rule set they describe: each rule option
//! millbase can represent maps onto a [`Rules`] field; one it cannot is
//! refused with the reason, never ignored.

use crate::rules::{DoubleMill, Flying, FullBoard, Protection, Rules};

/// The rule options as Sanmill names them, kept apart from the rule set so
/// that the order in which they arrive does not matter.
#[derive(Clone, Debug)]
pub struct RuleOptions {
    pieces: u8,
    diagonals: bool,
    may_fly: bool,
    fly_count: u8,
    remove_from_mills: bool,
    remove_multiple: bool,
    board_full_draw: bool,
    move_in_placing: bool,
    nmove: Option<u16>,
    endgame_nmove: u16,
}

impl Default for RuleOptions {
    /// Sanmill's defaults, with the N-move rule off: the pure game, whose
    /// tables a standard build makes.
    fn default() -> Self {
        RuleOptions {
            pieces: 9,
            diagonals: false,
            may_fly: true,
            fly_count: 3,
            remove_from_mills: false,
            remove_multiple: false,
            board_full_draw: false,
            move_in_placing: false,
            nmove: None,
            endgame_nmove: 100,
        }
    }
}

/// What a `setoption` did.
#[derive(Debug, PartialEq, Eq)]
pub enum OptionEffect {
    /// A rule changed: the rule set is now this.
    Rules,
    /// An engine option was set.
    Engine,
}

/// Engine options that change nothing millbase does: Sanmill's own search
/// settings, accepted so that a GUI can send its usual list.
const INERT: &[&str] = &[
    "threads",
    "hash",
    "clear hash",
    "ponder",
    "multipv",
    "skilllevel",
    "skill level",
    "aiislazy",
    "move overhead",
    "slow mover",
    "nodestime",
    "shuffling",
    "algorithm",
    "useperfectdatabase",
    "perfectdatabasepath",
    "drawonhumanexperience",
    "considermobility",
    "focusonblockingpaths",
    "developermode",
    "debug log file",
    "contempt",
    "analysis contempt",
    "uci_analysemode",
    "uci_limitstrength",
    "uci_elo",
    "trapawareness",
];

fn flag(value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        v => Err(format!("`{v}` is not true or false")),
    }
}

fn number(value: &str, lo: u32, hi: u32) -> Result<u32, String> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (lo..=hi).contains(n))
        .ok_or_else(|| format!("`{value}` is not a number from {lo} to {hi}"))
}

impl RuleOptions {
    /// Applies `setoption name NAME value VALUE` (a rule option or an inert
    /// engine option); an option whose value millbase cannot represent is
    /// an error that says why.
    pub fn set(&mut self, name: &str, value: &str) -> Result<OptionEffect, String> {
        let key = name.to_ascii_lowercase();
        let needs = |want: bool, got: bool, what: &str| {
            if want == got {
                Ok(OptionEffect::Rules)
            } else {
                Err(format!("{name} {value}: {what} is not a rule millbase has"))
            }
        };
        match key.as_str() {
            "piecescount" => {
                self.pieces = number(value, 3, 12)? as u8;
                Ok(OptionEffect::Rules)
            }
            "hasdiagonallines" => {
                self.diagonals = flag(value)?;
                Ok(OptionEffect::Rules)
            }
            "mayfly" => {
                self.may_fly = flag(value)?;
                Ok(OptionEffect::Rules)
            }
            "flypiececount" => {
                self.fly_count = number(value, 3, 4)? as u8;
                Ok(OptionEffect::Rules)
            }
            "mayremovefrommillsalways" => {
                self.remove_from_mills = flag(value)?;
                Ok(OptionEffect::Rules)
            }
            "mayremovemultiple" => {
                self.remove_multiple = flag(value)?;
                Ok(OptionEffect::Rules)
            }
            "maymoveinplacingphase" => {
                self.move_in_placing = flag(value)?;
                Ok(OptionEffect::Rules)
            }
            "boardfullaction" => match number(value, 0, 4)? {
                0 => {
                    self.board_full_draw = false;
                    Ok(OptionEffect::Rules)
                }
                4 => {
                    self.board_full_draw = true;
                    Ok(OptionEffect::Rules)
                }
                _ => Err(format!(
                    "{name} {value}: removing stones from a full board is not a rule millbase has \
                     (0, the first player loses, and 4, a draw, are)"
                )),
            },
            "nmoverule" => {
                let n = number(value, 0, Rules::MAX_NMOVE as u32)? as u16;
                self.nmove = (n > 0).then_some(n);
                Ok(OptionEffect::Rules)
            }
            "endgamenmoverule" => {
                let n = number(value, 1, 1000)? as u16;
                self.endgame_nmove = n;
                Ok(OptionEffect::Rules)
            }
            "piecesatleastcount" => needs(
                number(value, 3, 5)? == 3,
                true,
                "losing with more than two stones",
            ),
            "isdefendermovefirst" => needs(flag(value)?, false, "Black moving first"),
            "millformationactioninplacingphase" => needs(
                number(value, 0, 5)? == 0,
                true,
                "a mill in the placing phase doing anything but remove a stone",
            ),
            "restrictrepeatedmillsformation" => {
                needs(flag(value)?, false, "restricting repeated mills")
            }
            "onetimeusemill" => needs(flag(value)?, false, "one-time mills"),
            "stalemateaction" => needs(
                number(value, 0, 5)? == 0,
                true,
                "anything but a loss for a side that cannot move",
            ),
            "stopplacingwhentwoemptysquares" => {
                needs(flag(value)?, false, "stopping the placing early")
            }
            "custodiancaptureenabled" | "interventioncaptureenabled" | "leapcaptureenabled" => {
                needs(flag(value)?, false, "capturing other than by mills")
            }
            "threefoldrepetitionrule" => {
                flag(value)?;
                Ok(OptionEffect::Engine)
            }
            k if k.starts_with("custodiancapture")
                || k.starts_with("interventioncapture")
                || k.starts_with("leapcapture") =>
            {
                // Details of capture rules that are off.
                flag(value).map(|_| OptionEffect::Engine)
            }
            k if INERT.contains(&k) => Ok(OptionEffect::Engine),
            _ => Err(format!("no such option: {name}")),
        }
    }

    /// The rule set these options describe.
    pub fn rules(&self) -> Result<Rules, String> {
        if let Some(n) = self.nmove
            && self.endgame_nmove < n
        {
            return Err(format!(
                "EndgameNMoveRule {} below NMoveRule {n}: a second N-move rule for the endgame is not a rule millbase has",
                self.endgame_nmove
            ));
        }
        let mut rules = if self.diagonals {
            Rules::parse_family("twelve").map_err(|e| e.to_string())?
        } else {
            Rules::STANDARD
        };
        rules.stones.white = self.pieces;
        rules.stones.black = self.pieces;
        rules.flying = if self.may_fly {
            Flying::AtMost(self.fly_count)
        } else {
            Flying::Off
        };
        rules.protection = if self.remove_from_mills {
            Protection::None
        } else {
            Protection::Standard
        };
        rules.double_mill = if self.remove_multiple {
            DoubleMill::PerMill
        } else {
            DoubleMill::One
        };
        rules.full_board = if self.board_full_draw {
            FullBoard::Draw
        } else {
            FullBoard::Loss
        };
        rules.lasker = self.move_in_placing;
        rules.nmove = self.nmove;
        // Through the text, so that every check of a rule set applies.
        rules
            .canonical()
            .parse()
            .map_err(|e: crate::rules::RulesError| e.to_string())
    }
}
