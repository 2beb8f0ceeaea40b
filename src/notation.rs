//! Move text and position input in every form `docs/RULES.md` names.
//!
//! Move text is parsed in two steps, as in chess libraries: syntax first
//! ([`MoveText`]), then resolution against a position's legal moves
//! ([`resolve_move`]).

use crate::error::ParseError;
use crate::geometry::{Board, Point, PointSet};
use crate::moves::{Move, legal_moves, next_counter};
use crate::position::{Position, parse_board_string, parse_sanmill};
use crate::rules::Rules;

/// How moves are written.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Notation {
    /// Coordinates: `g7`, `d7-d6xd2`.
    #[default]
    Coords,
    /// Point numbers: `-2`, `1-9x13`.
    Points,
}

/// A move as written, before it is checked against a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveText {
    /// Origin (`None` for a placement).
    pub from: Option<Point>,
    /// Target.
    pub to: Point,
    /// Removed stones as written (possibly none).
    pub removed: Vec<Point>,
    /// The notation used.
    pub notation: Notation,
}

fn parse_point(board: &Board, s: &str, token: &str) -> Result<(Point, Notation), ParseError> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse::<u8>()
            .ok()
            .and_then(|n| board.point(n))
            .map(|p| (p, Notation::Points))
            .ok_or_else(|| {
                ParseError::new(format!(
                    "move `{token}`: point `{s}` is not a point number 0-{}",
                    board.size - 1
                ))
            });
    }
    board
        .point_by_coord(s)
        .map(|p| (p, Notation::Coords))
        .ok_or_else(|| {
            let examples: Vec<&str> = (0..3)
                .filter_map(|n| board.point(n))
                .map(|p| board.coord(p))
                .collect();
            ParseError::new(format!(
                "move `{token}`: `{s}` is neither a point number nor a board coordinate ({}, ...)",
                examples.join(", ")
            ))
        })
}

/// Parses a removal token on its own (`xd2`, `x13`).
pub fn parse_removal_token(board: &Board, token: &str) -> Option<Result<Point, ParseError>> {
    let rest = token.strip_prefix(['x', 'X'])?;
    Some(parse_point(board, rest, token).map(|(p, _)| p))
}

impl MoveText {
    /// Parses `-2`, `-2x13`, `1-9x13`, `g7`, `g7xd2`, `d7-d6xd2`.
    pub fn parse(board: &Board, token: &str) -> Result<MoveText, ParseError> {
        // Coordinates are case-blind, so the removal mark is too.
        let mut parts = token.split(['x', 'X']);
        let step = parts.next().unwrap_or("");
        let (from, to, mut notation) = match step.split_once('-') {
            Some(("", to)) => {
                let (to, _) = parse_point(board, to, token)?;
                (None, to, Notation::Points)
            }
            Some((from, to)) => {
                let (from, n) = parse_point(board, from, token)?;
                let (to, _) = parse_point(board, to, token)?;
                (Some(from), to, n)
            }
            None if step.is_empty() => {
                return Err(ParseError::new(format!(
                    "move `{token}`: expected a move like `-2`, `1-9x13`, `g7` or `d7-d6xd2`"
                )));
            }
            None => {
                let (to, n) = parse_point(board, step, token)?;
                if n == Notation::Points {
                    return Err(ParseError::new(format!(
                        "move `{token}`: a placement in point numbers is written `-{step}`"
                    )));
                }
                (None, to, n)
            }
        };
        if from.is_some() && step.starts_with(|c: char| c.is_ascii_digit()) {
            notation = Notation::Points;
        }
        let removed = parts
            .map(|r| parse_point(board, r, token).map(|(p, _)| p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MoveText {
            from,
            to,
            removed,
            notation,
        })
    }
}

/// Writes a move in the given notation.
pub fn format_move(board: &Board, mv: &Move, notation: Notation) -> String {
    let name = |p: Point| match notation {
        Notation::Coords => board.coord(p).to_string(),
        Notation::Points => p.number().to_string(),
    };
    let mut s = match (mv.from, notation) {
        (Some(f), _) => format!("{}-{}", name(f), name(mv.to)),
        (None, Notation::Points) => format!("-{}", name(mv.to)),
        (None, Notation::Coords) => name(mv.to),
    };
    for r in mv.removed {
        s.push('x');
        s.push_str(&name(r));
    }
    s
}

/// Finds the legal move that `text` names in `pos`. A removal may be left
/// out when only one is possible.
pub fn resolve_move(pos: &Position, rules: &Rules, text: &MoveText) -> Result<Move, ParseError> {
    let board = rules.board();
    let mut moves = Vec::new();
    legal_moves(pos, rules, &mut moves);
    let shown = format_move(
        board,
        &Move {
            from: text.from,
            to: text.to,
            removed: text.removed.iter().copied().collect(),
        },
        text.notation,
    );
    if moves.is_empty() {
        let outcome = if crate::moves::no_moves_draws(pos, rules) {
            "a draw (the board is full)".to_string()
        } else {
            format!("{} has lost", pos.to_move.name())
        };
        return Err(ParseError::new(format!(
            "move `{shown}`: the game is over, {outcome}"
        )));
    }
    let same_step: Vec<&Move> = moves
        .iter()
        .filter(|m| m.from == text.from && m.to == text.to)
        .collect();
    if same_step.is_empty() {
        return Err(ParseError::new(format!(
            "move `{shown}` is not legal for {} here",
            pos.to_move.name()
        )));
    }
    let wanted: PointSet = text.removed.iter().copied().collect();
    if wanted.len() as usize != text.removed.len() {
        return Err(ParseError::new(format!(
            "move `{shown}` names a stone to remove twice"
        )));
    }
    if let Some(m) = same_step.iter().find(|m| m.removed == wanted) {
        return Ok(**m);
    }
    if text.removed.is_empty() && same_step.len() == 1 {
        return Ok(*same_step[0]);
    }
    let options: Vec<String> = same_step
        .iter()
        .map(|m| format_move(board, m, text.notation))
        .collect();
    Err(ParseError::new(format!(
        "move `{shown}`: {}; legal: {}",
        if text.removed.is_empty() {
            "it closes a mill, name the stone to remove"
        } else {
            "that removal is not allowed"
        },
        options.join(" ")
    )))
}

/// A position read from user input, with the notation the user wrote in.
#[derive(Clone, Debug)]
pub struct PositionInput {
    /// The position.
    pub position: Position,
    /// The moves played from the start, if the input was a move list.
    pub moves: Vec<Move>,
    /// Notation to print moves in.
    pub notation: Notation,
    /// The N-move counter (plies since the last mill in the moving phase),
    /// when the input gave one or the moves were played under the rule:
    /// below the rule's N, or N at a position where the game ended on the
    /// ply that reached it.
    pub counter: Option<u16>,
}

/// Plays a move list from the start (`-2 -3 1-9x13`, `g7 d7 ...`, tokens
/// separated by spaces or commas; a removal may be its own token `xd2`;
/// move numbers such as `1.` or `12...` are skipped).
pub fn play_move_list(text: &str, rules: &Rules) -> Result<PositionInput, ParseError> {
    let mut tokens = move_tokens(text);
    // `start` may only open the list.
    if tokens
        .first()
        .is_some_and(|t| t.eq_ignore_ascii_case("start"))
    {
        tokens.remove(0);
    }
    play_tokens(Position::start(rules), 0, &tokens, rules)
}

/// Plays a move list (as [`parse_position`](crate::parse_position) reads one) from `from`, at
/// N-move counter `counter`: a game record that does not open at the
/// start. The moves played are in the answer's `moves`.
pub fn play_moves_from(
    from: &PositionInput,
    text: &str,
    rules: &Rules,
) -> Result<PositionInput, ParseError> {
    let mut out = play_tokens(
        from.position,
        from.counter.unwrap_or(0),
        &move_tokens(text),
        rules,
    )?;
    if out.moves.is_empty() {
        out.notation = from.notation;
    }
    Ok(out)
}

/// The tokens of a move list, without move numbers (`1.`, `1...`, and the
/// number of `1.a7`).
fn move_tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .map(|t| {
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let rest = &t[digits..];
            if digits > 0 && rest.starts_with('.') {
                rest.trim_start_matches('.')
            } else {
                t
            }
        })
        .filter(|t| !t.is_empty())
        .collect()
}

fn play_tokens(
    mut pos: Position,
    mut counter: u16,
    tokens: &[&str],
    rules: &Rules,
) -> Result<PositionInput, ParseError> {
    let board = rules.board();
    let mut played = Vec::new();
    let mut notation = None;
    // `counter`: plies since the last mill (or the end of the placing
    // phase), under the N-move rule.
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let mut mt = MoveText::parse(board, token).map_err(|e| {
            if parse_removal_token(board, token).is_some() {
                ParseError::new(format!(
                    "token {} `{token}`: a removal must follow a move that closes a mill",
                    i + 1
                ))
            } else {
                ParseError::new(format!("token {}: {e}", i + 1))
            }
        })?;
        while let Some(Some(r)) = tokens.get(i + 1).map(|t| parse_removal_token(board, t)) {
            let r = r.map_err(|e| ParseError::new(format!("token {}: {e}", i + 2)))?;
            mt.removed.push(r);
            i += 1;
        }
        notation.get_or_insert(mt.notation);
        let mv = resolve_move(&pos, rules, &mt).map_err(|e| {
            ParseError::new(format!("token {} (ply {}): {e}", i + 1, played.len() + 1))
        })?;
        if let Some(n) = rules.nmove {
            if counter >= n {
                return Err(ParseError::new(format!(
                    "token {} (ply {}): the game was drawn by the N-move rule ({n} plies without a mill) before this move",
                    i + 1,
                    played.len() + 1
                )));
            }
            counter = next_counter(board, &pos, &mv, counter);
        }
        pos = pos.play(&mv);
        played.push(mv);
        i += 1;
    }
    Ok(PositionInput {
        position: pos,
        moves: played,
        notation: notation.unwrap_or_default(),
        counter: rules.nmove.map(|_| counter),
    })
}

/// Reads a position in any supported form: a board string, a Sanmill
/// line, or a move list from the start (`start` alone is the start).
pub fn parse_position(text: &str, rules: &Rules) -> Result<PositionInput, ParseError> {
    let text = text.trim();
    let first = text.split_whitespace().next().unwrap_or("");
    let plain = |position| PositionInput {
        position,
        moves: Vec::new(),
        notation: Notation::Coords,
        counter: None,
    };
    // Move tokens never hold `/` or `.`; a board string without either is
    // a full board.
    let numbered = first.starts_with(|c: char| c.is_ascii_digit())
        && first
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with('.');
    let board_like = !numbered
        && (first.contains('/')
            || first.contains('.')
            || first.len() == rules.board().size as usize);
    if !board_like {
        return play_move_list(text, rules);
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    if first.chars().any(|c| matches!(c, 'O' | '@' | '*')) {
        let mut input = plain(parse_sanmill(text, rules)?);
        // Sanmill writes its N-move counter before the move number, the
        // last field; it means nothing without the rule, so it is only read
        // under one.
        if rules.nmove.is_some() && fields.len() >= 10 {
            input.counter = Some(parse_counter(
                fields[fields.len() - 2],
                &input.position,
                rules,
            )?);
        }
        return Ok(input);
    }
    if fields.len() == 5 {
        let mut input = plain(parse_board_string(&fields[..4].join(" "), rules)?);
        input.counter = Some(parse_counter(fields[4], &input.position, rules)?);
        return Ok(input);
    }
    parse_board_string(text, rules).map(plain)
}

/// Reads an N-move counter for `pos`: a whole number of plies below the
/// rule's N, 0 while stones are in hand (the counter starts when the
/// placing phase ends).
pub fn parse_counter(text: &str, pos: &Position, rules: &Rules) -> Result<u16, ParseError> {
    let Some(n) = rules.nmove else {
        return Err(ParseError::new(format!(
            "counter `{text}`: rules {} have no N-move rule (add nmove=N to count plies without a mill)",
            rules.short_name()
        )));
    };
    let c: u16 = text.parse().map_err(|_| {
        ParseError::new(format!(
            "counter `{text}`: expected a whole number of plies from 0 to {}",
            n - 1
        ))
    })?;
    if c > n {
        return Err(ParseError::new(format!(
            "counter {c}: under nmove={n} the game is drawn when the counter reaches {n}; expected 0 to {n}"
        )));
    }
    if c > 0 && !pos.is_moving_phase() {
        return Err(ParseError::new(format!(
            "counter {c}: the counter starts when the placing phase ends; a position with stones in hand has counter 0"
        )));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_notations_parse_and_print() {
        let board = Board::standard();
        for (t, n) in [
            ("-2", Notation::Points),
            ("1-9x13", Notation::Points),
            ("-2x13", Notation::Points),
            ("g7", Notation::Coords),
            ("d7-d6xd2", Notation::Coords),
            ("g7xd2", Notation::Coords),
        ] {
            let mt = MoveText::parse(board, t).unwrap();
            assert_eq!(mt.notation, n, "{t}");
            let mv = Move {
                from: mt.from,
                to: mt.to,
                removed: mt.removed.iter().copied().collect(),
            };
            assert_eq!(format_move(board, &mv, n), t);
        }
        let a = MoveText::parse(board, "1-9x13").unwrap();
        let b = MoveText::parse(board, "d7-d6xd2").unwrap();
        assert_eq!((a.from, a.to, a.removed), (b.from, b.to, b.removed));
    }

    #[test]
    fn move_list_with_mill_and_separate_removal() {
        let r = Rules::STANDARD;
        // White closes a7-d7-g7 and removes a black stone.
        let a = play_move_list("a7 b6 d7 d6 g7 xb6", &r).unwrap();
        let b = play_move_list("-0 -8 -1 -9 -2x8", &r).unwrap();
        assert_eq!(a.position, b.position);
        assert_eq!(a.notation, Notation::Coords);
        assert_eq!(b.notation, Notation::Points);
        assert_eq!(a.position.stones.black.len(), 1);
        assert_eq!(a.position.hand.black, 7);
    }

    #[test]
    fn removal_marks_are_case_blind_and_name_a_stone_once() {
        let r = Rules::STANDARD;
        let a = play_move_list("A7 B6 D7 D6 G7XB6", &r).unwrap();
        let b = play_move_list("a7 b6 d7 d6 g7 Xb6", &r).unwrap();
        let c = play_move_list("a7 b6 d7 d6 g7xb6", &r).unwrap();
        assert_eq!(a.position, c.position);
        assert_eq!(b.position, c.position);
        let e = play_move_list("a7 b6 d7 d6 g7xb6xb6", &r).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
    }

    #[test]
    fn move_lists_count_plies_under_the_n_move_rule() {
        // Three stones each, no mill in the placing phase; then White
        // a7-a4 and Black g7-d7, two quiet slides.
        let moves = "a7 g7 a1 g1 d2 d6 a7-a4 g7-d7";
        let at = |rules: &str, text: &str| play_move_list(text, &rules.parse().unwrap());
        assert_eq!(at("standard,stones=3", moves).unwrap().counter, None);
        assert_eq!(
            at("standard,stones=3,nmove=3", moves).unwrap().counter,
            Some(2)
        );
        assert_eq!(
            at("standard,stones=3,nmove=3", "a7 g7 a1 g1 d2 d6")
                .unwrap()
                .counter,
            Some(0)
        );
        // With N = 2 the second slide draws the game: the list ends at
        // counter N, and no move may follow.
        assert_eq!(
            at("standard,stones=3,nmove=2", moves).unwrap().counter,
            Some(2)
        );
        let e = at("standard,stones=3,nmove=1", moves).unwrap_err();
        assert!(e.to_string().contains("token 8 (ply 8)"), "{e}");
    }

    #[test]
    fn move_numbers_are_skipped_and_lists_play_from_any_position() {
        let r = Rules::STANDARD;
        let plain = play_move_list("a7 b6 d7 d6 g7xb6", &r).unwrap();
        for numbered in [
            "1. a7 b6 2. d7 d6 3. g7xb6",
            "1.a7 b6 2.d7 d6 3.g7xb6",
            "1. a7 1... b6 2. d7 2... d6 3. g7 xb6",
        ] {
            let input = parse_position(numbered, &r).unwrap();
            assert_eq!(input.position, plain.position, "{numbered}");
            assert_eq!(input.moves, plain.moves, "{numbered}");
        }
        // A number with no move after it is no move; a board string that
        // follows the list's form stays a board string.
        assert!(play_move_list("1. a7 2.", &r).is_ok());
        let from = parse_position("a7 b6", &r).unwrap();
        let rest = play_moves_from(&from, "d7 d6 g7xb6", &r).unwrap();
        assert_eq!(rest.position, plain.position);
        assert_eq!(rest.moves, plain.moves[2..]);
        assert!(play_moves_from(&from, "a7", &r).is_err());
    }

    #[test]
    fn bad_moves_are_named() {
        let r = Rules::STANDARD;
        let cases = [
            ("a7 a7", "not legal"),
            ("a7 b6 d7 d6 g7", "name the stone"),
            ("a7 b6 d7 d6 g7xa7", "not allowed"),
            ("a7 h9", "`h9`"),
            ("-25", "point number"),
            ("5", "written `-5`"),
            ("xa7", "must follow"),
        ];
        for (text, needle) in cases {
            let e = play_move_list(text, &r).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn position_forms() {
        let r = Rules::STANDARD;
        let start = Position::start(&r);
        assert_eq!(parse_position("start", &r).unwrap().position, start);
        assert_eq!(parse_position("", &r).unwrap().position, start);
        assert_eq!(
            parse_position("......../......../........ w 9 9", &r)
                .unwrap()
                .position,
            start
        );
        assert_eq!(
            parse_position(
                "********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1",
                &r
            )
            .unwrap()
            .position,
            start
        );
    }
}
