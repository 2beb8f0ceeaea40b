//! Position text: the board string and Sanmill's FEN-like line.

use super::{ByColor, Color, Position};
use crate::error::ParseError;
use crate::geometry::{Point, PointSet};
use crate::rules::Rules;

/// Parses `<one char W/B/. per point> <w|b> [<white in hand> <black in hand>]`
/// (point order, 9, 16 or 24 characters by the board, optional `/` after
/// every 8 characters).
pub fn parse_board_string(text: &str, rules: &Rules) -> Result<Position, ParseError> {
    let board = rules.board();
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 2 && fields.len() != 4 {
        return Err(ParseError::new(format!(
            "board string `{text}`: expected `<{} chars W/B/.> <w|b> [<white in hand> <black in hand>]`",
            board.size
        )));
    }
    let mut stones = ByColor::<PointSet>::default();
    let mut n = 0u8;
    for (i, ch) in fields[0].chars().enumerate() {
        let color = match ch {
            'W' | 'w' => Some(Color::White),
            'B' | 'b' => Some(Color::Black),
            '.' => None,
            '/' if n > 0 && n.is_multiple_of(8) => continue,
            _ => {
                return Err(ParseError::new(format!(
                    "board string: character {} `{ch}` is not W, B, . or a `/` after 8 points",
                    i + 1
                )));
            }
        };
        let Some(p) = board.point(n) else {
            return Err(ParseError::new(format!(
                "board string has more than {} points, expected {} for board {}",
                board.size, board.size, board.name
            )));
        };
        if let Some(c) = color {
            stones[c] = stones[c].with(p);
        }
        n += 1;
    }
    if n != board.size {
        return Err(ParseError::new(format!(
            "board string has {n} points, expected {} for board {}",
            board.size, board.name
        )));
    }
    let to_move = parse_side(fields[1])?;
    let hand = if fields.len() == 4 {
        ByColor {
            white: parse_count(fields[2], "white stones in hand")?,
            black: parse_count(fields[3], "black stones in hand")?,
        }
    } else {
        ByColor::default()
    };
    Ok(Position::new(stones, hand, to_move, rules)?)
}

fn parse_side(s: &str) -> Result<Color, ParseError> {
    match s {
        "w" | "W" => Ok(Color::White),
        "b" | "B" => Ok(Color::Black),
        _ => Err(ParseError::new(format!(
            "side to move `{s}`: expected `w` or `b`"
        ))),
    }
}

fn parse_count(s: &str, what: &str) -> Result<u8, ParseError> {
    s.parse::<u8>()
        .ok()
        .filter(|&n| n <= 24)
        .ok_or_else(|| ParseError::new(format!("{what} `{s}`: expected a number from 0 to 24")))
}

/// Sanmill ring order: ring `r` (inner, middle, outer) starts at the
/// top-middle point and runs clockwise.
fn sanmill_point(ring: usize, j: usize) -> Point {
    let square = 2 - ring;
    Point::new_unchecked((8 * square + (j + 1) % 8) as u8)
}

/// Every field of a Sanmill line that millbase reads (Sanmill's FEN:
/// rings, side, phase, action, stones on the board and in hand of each
/// side, the removals each side owes, four last-mill fields, a mill mask,
/// the counter of plies without a removal, the move number; extension
/// tokens after them are skipped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SanmillLine {
    /// The position; while a removal is owed, with the side that closed the
    /// mill still to move.
    pub position: Position,
    /// Removals the side to move owes (action `r`), 0 otherwise.
    pub removals: u8,
    /// Plies since the last removal (field 16; 0 when absent).
    pub rule50: u16,
    /// The move number (field 17; 1 when absent).
    pub fullmove: u32,
}

/// Parses Sanmill's FEN-like line (`docs/RULES.md` section 2) into a
/// position; refuses one that waits for a removal.
pub fn parse_sanmill(text: &str, rules: &Rules) -> Result<Position, ParseError> {
    let owes = text.split_whitespace().nth(3) == Some("r");
    if owes || read_sanmill(text, rules)?.removals > 0 {
        return Err(ParseError::new(
            "Sanmill position waits for a removal (action `r`): it lies between the two halves of a move; give the position before the mill was closed or after the removal",
        ));
    }
    Ok(read_sanmill(text, rules)?.position)
}

/// Reads every field of a Sanmill line, a position that waits for a
/// removal (action `r`) included.
pub fn read_sanmill(text: &str, rules: &Rules) -> Result<SanmillLine, ParseError> {
    let fields: Vec<&str> = text
        .split_whitespace()
        .filter(|f| !f.contains(':'))
        .collect();
    if rules.board().size != 24 {
        return Err(ParseError::new(format!(
            "Sanmill lines describe 24-point boards; board {} has {} points: give a board string",
            rules.board,
            rules.board().size
        )));
    }
    if fields.len() < 8 {
        return Err(ParseError::new(format!(
            "Sanmill position `{text}`: expected at least 8 fields (rings, side, phase, action, white on board, white in hand, black on board, black in hand)"
        )));
    }
    let rings: Vec<&str> = fields[0].split('/').collect();
    if rings.len() != 3 || rings.iter().any(|r| r.chars().count() != 8) {
        return Err(ParseError::new(format!(
            "Sanmill board `{}`: expected three rings of 8 characters separated by `/`",
            fields[0]
        )));
    }
    let mut stones = ByColor::<PointSet>::default();
    for (r, ring) in rings.iter().enumerate() {
        for (j, ch) in ring.chars().enumerate() {
            let p = sanmill_point(r, j);
            match ch {
                'O' => stones.white = stones.white.with(p),
                '@' => stones.black = stones.black.with(p),
                '*' => {}
                'X' => {
                    return Err(ParseError::new(
                        "Sanmill board has a blocked point `X`: no rule set here blocks points",
                    ));
                }
                _ => {
                    return Err(ParseError::new(format!(
                        "Sanmill board: character `{ch}` is not O, @ or *"
                    )));
                }
            }
        }
    }
    let to_move = parse_side(fields[1])?;
    if !matches!(fields[2], "r" | "p" | "m" | "o") {
        return Err(ParseError::new(format!(
            "Sanmill phase `{}`: expected r, p, m or o",
            fields[2]
        )));
    }
    let removing = match fields[3] {
        "r" => true,
        "p" | "s" | "?" => false,
        a => {
            return Err(ParseError::new(format!(
                "Sanmill action `{a}`: expected p, s or r"
            )));
        }
    };
    let on_w = parse_count(fields[4], "white stones on board")?;
    let hand_w = parse_count(fields[5], "white stones in hand")?;
    let on_b = parse_count(fields[6], "black stones on board")?;
    let hand_b = parse_count(fields[7], "black stones in hand")?;
    if on_w as u32 != stones.white.len() || on_b as u32 != stones.black.len() {
        return Err(ParseError::new(format!(
            "Sanmill counts say {on_w} white and {on_b} black stones on the board, the rings show {} and {}",
            stones.white.len(),
            stones.black.len()
        )));
    }
    if fields[2] == "m" && (hand_w > 0 || hand_b > 0) {
        return Err(ParseError::new(format!(
            "Sanmill phase `m` (moving) with stones in hand ({hand_w} white, {hand_b} black): expected phase p"
        )));
    }
    let number = |i: usize, what: &str| -> Result<Option<i64>, ParseError> {
        fields
            .get(i)
            .map(|f| {
                f.parse::<i64>().map_err(|_| {
                    ParseError::new(format!("Sanmill {what} `{f}`: expected a number"))
                })
            })
            .transpose()
    };
    let owed = |i: usize, what: &str| -> Result<u8, ParseError> {
        match number(i, what)?.unwrap_or(0) {
            n @ 0..=4 => Ok(n as u8),
            n => Err(ParseError::new(format!(
                "Sanmill {what} `{n}`: expected 0 to 4 (removing one's own stones is not a rule here)"
            ))),
        }
    };
    let owed_by = ByColor {
        white: owed(8, "white removals")?,
        black: owed(9, "black removals")?,
    };
    let mut removals = owed_by[to_move];
    if removing && removals == 0 {
        removals = 1;
    }
    if !removing {
        removals = 0;
    }
    let rule50 = number(15, "ply counter")?.unwrap_or(0);
    let fullmove = number(16, "move number")?.unwrap_or(1);
    let rule50 = u16::try_from(rule50)
        .map_err(|_| ParseError::new(format!("Sanmill ply counter `{rule50}` out of range")))?;
    let fullmove = u32::try_from(fullmove.max(1))
        .map_err(|_| ParseError::new(format!("Sanmill move number `{fullmove}` out of range")))?;
    let hand = ByColor {
        white: hand_w,
        black: hand_b,
    };
    // A position waiting for a removal is checked as the one the move
    // leads to, whose side to move is the other.
    let checked_side = if removals > 0 { !to_move } else { to_move };
    let mut position = Position::new(stones, hand, checked_side, rules)?;
    position.to_move = to_move;
    Ok(SanmillLine {
        position,
        removals,
        rule50,
        fullmove,
    })
}

/// Writes every field of a Sanmill line: the position (with `removals`
/// owed by the side to move), `rule50` and the move number; the last-mill
/// fields and the mill mask are written empty.
pub fn write_sanmill(line: &SanmillLine) -> String {
    let pos = &line.position;
    let (w, b) = match pos.to_move {
        Color::White => (line.removals, 0),
        Color::Black => (0, line.removals),
    };
    let action = if line.removals > 0 {
        'r'
    } else if pos.hand[pos.to_move] > 0 {
        'p'
    } else {
        's'
    };
    let mut fields: Vec<String> = to_sanmill(pos).split(' ').map(str::to_string).collect();
    fields[3] = action.to_string();
    format!(
        "{} {w} {b} 0 0 0 0 0 {} {}",
        fields.join(" "),
        line.rule50,
        line.fullmove
    )
}

/// Writes a position as Sanmill's line (first 8 fields plus zeros).
pub fn to_sanmill(pos: &Position) -> String {
    let mut rings = Vec::new();
    for r in 0..3 {
        let ring: String = (0..8)
            .map(|j| match pos.color_at(sanmill_point(r, j)) {
                Some(Color::White) => 'O',
                Some(Color::Black) => '@',
                None => '*',
            })
            .collect();
        rings.push(ring);
    }
    let phase = if pos.is_moving_phase() { 'm' } else { 'p' };
    let action = if pos.hand[pos.to_move] > 0 { 'p' } else { 's' };
    format!(
        "{} {} {phase} {action} {} {} {} {}",
        rings.join("/"),
        pos.to_move.letter(),
        pos.stones.white.len(),
        pos.hand.white,
        pos.stones.black.len(),
        pos.hand.black
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_their_kind() {
        let r = Rules::STANDARD;
        // Ten white stones in all: reads, but breaks the rules.
        let too_many = parse_board_string("WWWWWWWW/WW....../........ w 0 9", &r);
        assert!(
            matches!(too_many, Err(ParseError::Position(_))),
            "{too_many:?}"
        );
        let side = parse_board_string("......../......../........ x 9 9", &r);
        assert!(matches!(side, Err(ParseError::Syntax(_))), "{side:?}");
        let rules = "standard,stones=99"
            .parse::<Rules>()
            .map_err(ParseError::from);
        assert!(matches!(rules, Err(ParseError::Rules(_))), "{rules:?}");
    }

    #[test]
    fn start_board_string() {
        let r = Rules::STANDARD;
        let p = parse_board_string("......../......../........ w 9 9", &r).unwrap();
        assert_eq!(p, Position::start(&r));
        assert_eq!(p.board_string(&r), "......../......../........ w 9 9");
    }

    #[test]
    fn sanmill_round_trip() {
        let r = Rules::STANDARD;
        let p = parse_board_string("WW.....W/.BBB.B../B....... b 0 0", &r).unwrap();
        let s = to_sanmill(&p);
        assert_eq!(parse_sanmill(&s, &r).unwrap(), p);
        // d5 (point 17) is the first character of the inner ring.
        let q = parse_sanmill(
            "O*******/********/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1",
            &r,
        )
        .unwrap();
        assert!(q.stones.white.contains(Point::new(17).unwrap()));
    }

    #[test]
    fn bad_board_strings_name_the_problem() {
        let r = Rules::STANDARD;
        let cases = [
            ("......../......../.......X w 9 9", "`X`"),
            ("........ w", "8 points"),
            ("......../......../........ x 9 9", "`x`"),
            ("......../......../........ b 9 9", "Black must hold"),
            ("WWWWWWWWWW......B....... b 0 0", "more than the 9"),
            ("WWW.................BB.. w 0 0", "fewer than 3"),
            ("WWWW..............B..... b 0 0", "fewer than 2"),
            ("WWWW.................... b 0 0", "fewer than 2"),
        ];
        for (text, needle) in cases {
            let e = parse_board_string(text, &r).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
