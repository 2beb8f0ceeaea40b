//! ASCII pictures of boards and positions for people.

use crate::geometry::{Board, Point};
use crate::position::{Color, Position};

/// Characters between two grid columns and lines between two grid rows.
const COL: usize = 4;
const ROW: usize = 2;

/// Column and row (from the top) of a point in the board's coordinate grid.
fn grid_of(board: &Board, p: Point) -> (usize, usize) {
    let c = board.coord(p).as_bytes();
    let top = b'0' + board.grid_size() as u8;
    ((c[0] - b'a') as usize, (top - c[1]) as usize)
}

/// Draws the board with one label per point (at most 2 characters).
fn draw(board: &Board, label: impl Fn(Point) -> String) -> Vec<String> {
    let n = board.grid_size();
    let mut grid = vec![vec![' '; (n - 1) * COL + 2]; (n - 1) * ROW + 1];
    for &(a, b) in &board.edges {
        let ((ca, ra), (cb, rb)) = (grid_of(board, a), grid_of(board, b));
        if ra == rb {
            grid[ra * ROW][ca.min(cb) * COL..=ca.max(cb) * COL].fill('-');
        } else if ca == cb {
            for row in &mut grid[ra.min(rb) * ROW..=ra.max(rb) * ROW] {
                row[ca * COL] = '|';
            }
        } else {
            // A diagonal, drawn on the lines between its ends.
            let ((c0, r0), (c1, r1)) = if ra < rb {
                ((ca, ra), (cb, rb))
            } else {
                ((cb, rb), (ca, ra))
            };
            let (slash, right) = if c1 > c0 { ('\\', true) } else { ('/', false) };
            let (cols, rows) = (c0.abs_diff(c1) * COL, (r1 - r0) * ROW);
            for k in 1..rows {
                let dc = cols * k / rows;
                let c = if right { c0 * COL + dc } else { c0 * COL - dc };
                grid[r0 * ROW + k][c] = slash;
            }
        }
    }
    for p in board.points() {
        let (c, r) = grid_of(board, p);
        for (i, ch) in label(p).chars().enumerate() {
            grid[r * ROW][c * COL + i] = ch;
        }
    }
    grid.into_iter()
        .map(|row| row.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// The position beside a map of the point numbers, with coordinates on the
/// margins. `W` is White, `B` Black, `.` an empty point.
pub fn render_position(board: &Board, pos: &Position) -> String {
    let stones = draw(board, |p| {
        match pos.color_at(p) {
            Some(Color::White) => "W",
            Some(Color::Black) => "B",
            None => ".",
        }
        .to_string()
    });
    let numbers = draw(board, |p| p.number().to_string());
    let n = board.grid_size();
    let width = (n - 1) * COL + 2;
    let mut out = String::new();
    for (i, (s, num)) in stones.iter().zip(&numbers).enumerate() {
        let rank = if i % ROW == 0 {
            format!("{}", n - i / ROW)
        } else {
            " ".into()
        };
        out.push_str(format!("{rank}  {s:<width$}   {num}").trim_end());
        out.push('\n');
    }
    let files: String = (0..n)
        .map(|c| format!("{:<COL$}", (b'a' + c as u8) as char))
        .collect();
    out.push_str(&format!(
        "   {:<w$}(right: point numbers 0-{})\n",
        files,
        board.size - 1,
        w = width + 3
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn every_board_draws_every_point() {
        for name in Board::NAMES {
            let board = Board::by_name(name).unwrap();
            let rules = Rules {
                board: board.name,
                ..Rules::STANDARD
            };
            let text = render_position(board, &Position::start(&rules));
            let dots = text.lines().map(|l| l.matches('.').count()).sum::<usize>();
            assert_eq!(dots, board.size as usize, "{name}:\n{text}");
            assert!(text.contains(&format!("0-{}", board.size - 1)));
        }
        let diag = render_position(
            Board::by_name("diagonals").unwrap(),
            &Position::start(&Rules::TWELVE),
        );
        assert!(diag.contains('\\') && diag.contains('/'), "{diag}");
    }
}
