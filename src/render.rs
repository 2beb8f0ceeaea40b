//! ASCII pictures of boards and positions for people.

use crate::geometry::{Board, Point};
use crate::position::{Color, Position};

/// Column and row (from the top) of a point in the 7x7 coordinate grid.
fn grid_of(board: &Board, p: Point) -> (usize, usize) {
    let c = board.coord(p).as_bytes();
    ((c[0] - b'a') as usize, (b'7' - c[1]) as usize)
}

/// Draws the board with one label per point (at most 2 characters).
fn draw(board: &Board, label: impl Fn(Point) -> String) -> Vec<String> {
    let mut grid = vec![vec![' '; 26]; 13];
    for &(a, b) in &board.edges {
        let ((ca, ra), (cb, rb)) = (grid_of(board, a), grid_of(board, b));
        if ra == rb {
            grid[ra * 2][ca.min(cb) * 4..=ca.max(cb) * 4].fill('-');
        } else {
            for row in &mut grid[ra.min(rb) * 2..=ra.max(rb) * 2] {
                row[ca * 4] = '|';
            }
        }
    }
    for p in board.points() {
        let (c, r) = grid_of(board, p);
        for (i, ch) in label(p).chars().enumerate() {
            grid[r * 2][c * 4 + i] = ch;
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
    let mut out = String::new();
    for (i, (s, n)) in stones.iter().zip(&numbers).enumerate() {
        let rank = if i % 2 == 0 {
            format!("{}", 7 - i / 2)
        } else {
            " ".into()
        };
        out.push_str(format!("{rank}  {s:<26}   {n}").trim_end());
        out.push('\n');
    }
    out.push_str("   a   b   c   d   e   f   g      (right: point numbers 0-23)\n");
    out
}
