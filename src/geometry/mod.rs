//! Board geometry: points, adjacency, lines (mills) and symmetries.
//!
//! A board is data, not code: [`BoardSpec`] lists coordinates, edges, lines
//! and the generators of the symmetry group; [`Board::from_spec`] derives the
//! rest (neighbour sets, lines through each point, the whole symmetry group).
//! Other layouts (diagonals, six men's, three men's) are new specs.

mod pointset;

pub use pointset::{PointSet, PointSetIter};
use std::fmt;
use std::sync::LazyLock;

/// Most points any supported board has.
pub const MAX_POINTS: usize = 24;

/// A point of the board, numbered from 0 (see `docs/RULES.md`, section 2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// The point numbered `n`, if `n < MAX_POINTS`.
    pub const fn new(n: u8) -> Option<Point> {
        if (n as usize) < MAX_POINTS {
            Some(Point(n))
        } else {
            None
        }
    }

    /// The point numbered `n`; the caller guarantees `n < MAX_POINTS`.
    pub const fn new_unchecked(n: u8) -> Point {
        debug_assert!((n as usize) < MAX_POINTS);
        Point(n)
    }

    /// The point number.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The point number as a byte.
    pub const fn number(self) -> u8 {
        self.0
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A permutation of the points that maps lines to lines and edges to edges.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Symmetry {
    /// `map[p]` is the image of point `p`.
    pub map: [u8; MAX_POINTS],
}

impl Symmetry {
    /// The identity on `n` points.
    pub fn identity() -> Symmetry {
        let mut map = [0u8; MAX_POINTS];
        for (i, m) in map.iter_mut().enumerate() {
            *m = i as u8;
        }
        Symmetry { map }
    }

    /// The image of one point.
    pub fn apply(&self, p: Point) -> Point {
        Point(self.map[p.index()])
    }

    /// The image of a set of points (slow path; the indexer has tables).
    pub fn apply_set(&self, s: PointSet) -> PointSet {
        s.iter().map(|p| self.apply(p)).collect()
    }

    /// `self` after `first`: `p -> self(first(p))`.
    pub fn after(&self, first: &Symmetry) -> Symmetry {
        let mut map = [0u8; MAX_POINTS];
        for (i, m) in map.iter_mut().enumerate() {
            *m = self.map[first.map[i] as usize];
        }
        Symmetry { map }
    }

    /// The inverse permutation.
    pub fn inverse(&self) -> Symmetry {
        let mut map = [0u8; MAX_POINTS];
        for i in 0..MAX_POINTS {
            map[self.map[i] as usize] = i as u8;
        }
        Symmetry { map }
    }
}

/// The data that defines a board layout.
pub struct BoardSpec {
    /// Name used in rule sets (`board=NAME`).
    pub name: &'static str,
    /// A board whose lines and edges this one has too (same points).
    pub extends: Option<&'static BoardSpec>,
    /// Coordinate label of each point, in point order.
    pub coords: &'static [&'static str],
    /// The lines of three (mills).
    pub lines: &'static [[u8; 3]],
    /// Pairs of adjacent points.
    pub edges: &'static [(u8, u8)],
    /// Generators of the symmetry group, as point permutations.
    pub symmetry_generators: &'static [&'static [u8]],
}

/// A board layout with everything derived from its `BoardSpec`.
#[derive(Debug)]
pub struct Board {
    /// Name used in rule sets.
    pub name: &'static str,
    /// Number of points.
    pub size: u8,
    /// All points of the board.
    pub all: PointSet,
    /// Coordinate label of each point.
    pub coords: Vec<&'static str>,
    /// Neighbours of each point.
    pub neighbours: [PointSet; MAX_POINTS],
    /// The lines (mills).
    pub lines: Vec<PointSet>,
    /// The lines through each point.
    pub lines_through: Vec<Vec<PointSet>>,
    /// Edges, each once, lower point first.
    pub edges: Vec<(Point, Point)>,
    /// The symmetry group, identity first.
    pub symmetries: Vec<Symmetry>,
}

/// The standard Nine Men's Morris board (docs/RULES.md section 2).
pub const STANDARD_SPEC: BoardSpec = BoardSpec {
    name: "standard",
    extends: None,
    coords: &[
        "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", "b6", "d6", "f6", "f4", "f2", "d2", "b2",
        "b4", "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4",
    ],
    lines: &[
        [0, 1, 2],
        [2, 3, 4],
        [4, 5, 6],
        [6, 7, 0],
        [8, 9, 10],
        [10, 11, 12],
        [12, 13, 14],
        [14, 15, 8],
        [16, 17, 18],
        [18, 19, 20],
        [20, 21, 22],
        [22, 23, 16],
        [1, 9, 17],
        [3, 11, 19],
        [5, 13, 21],
        [7, 15, 23],
    ],
    edges: &[
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 5),
        (5, 6),
        (6, 7),
        (7, 0),
        (8, 9),
        (9, 10),
        (10, 11),
        (11, 12),
        (12, 13),
        (13, 14),
        (14, 15),
        (15, 8),
        (16, 17),
        (17, 18),
        (18, 19),
        (19, 20),
        (20, 21),
        (21, 22),
        (22, 23),
        (23, 16),
        (1, 9),
        (9, 17),
        (3, 11),
        (11, 19),
        (5, 13),
        (13, 21),
        (7, 15),
        (15, 23),
    ],
    // Quarter turn clockwise, left-right mirror, inner/outer square swap.
    symmetry_generators: &[
        &[
            2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 18, 19, 20, 21, 22, 23, 16, 17,
        ],
        &[
            2, 1, 0, 7, 6, 5, 4, 3, 10, 9, 8, 15, 14, 13, 12, 11, 18, 17, 16, 23, 22, 21, 20, 19,
        ],
        &[
            16, 17, 18, 19, 20, 21, 22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
        ],
    ],
};

/// The standard board with the four diagonals through the corners, each a
/// line and two edges (docs/RULES.md 4.1): twelve men's morris, Morabaraba.
/// Its lines and edges are the standard board's plus these.
pub const DIAGONALS_SPEC: BoardSpec = BoardSpec {
    name: "diagonals",
    extends: Some(&STANDARD_SPEC),
    coords: STANDARD_SPEC.coords,
    lines: &[[0, 8, 16], [2, 10, 18], [4, 12, 20], [6, 14, 22]],
    edges: &[
        (0, 8),
        (8, 16),
        (2, 10),
        (10, 18),
        (4, 12),
        (12, 20),
        (6, 14),
        (14, 22),
    ],
    symmetry_generators: STANDARD_SPEC.symmetry_generators,
};

/// Six men's morris: two squares joined at the midpoints of their sides
/// (docs/RULES.md 4.2).
pub const SIX_SPEC: BoardSpec = BoardSpec {
    name: "six",
    extends: None,
    coords: &[
        "a5", "c5", "e5", "e3", "e1", "c1", "a1", "a3", "b4", "c4", "d4", "d3", "d2", "c2", "b2",
        "b3",
    ],
    lines: &[
        [0, 1, 2],
        [2, 3, 4],
        [4, 5, 6],
        [6, 7, 0],
        [8, 9, 10],
        [10, 11, 12],
        [12, 13, 14],
        [14, 15, 8],
    ],
    edges: &[
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 5),
        (5, 6),
        (6, 7),
        (7, 0),
        (8, 9),
        (9, 10),
        (10, 11),
        (11, 12),
        (12, 13),
        (13, 14),
        (14, 15),
        (15, 8),
        (1, 9),
        (3, 11),
        (5, 13),
        (7, 15),
    ],
    // Quarter turn clockwise, left-right mirror, inner/outer square swap.
    symmetry_generators: &[
        &[2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9],
        &[2, 1, 0, 7, 6, 5, 4, 3, 10, 9, 8, 15, 14, 13, 12, 11],
        &[8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7],
    ],
};

/// Three men's morris: a 3x3 grid with both diagonals (docs/RULES.md 4.3).
pub const THREE_SPEC: BoardSpec = BoardSpec {
    name: "three",
    extends: None,
    coords: &["a3", "b3", "c3", "c2", "c1", "b1", "a1", "a2", "b2"],
    lines: &[
        [0, 1, 2],
        [2, 3, 4],
        [4, 5, 6],
        [6, 7, 0],
        [7, 8, 3],
        [1, 8, 5],
        [0, 8, 4],
        [2, 8, 6],
    ],
    edges: &[
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 5),
        (5, 6),
        (6, 7),
        (7, 0),
        (0, 8),
        (1, 8),
        (2, 8),
        (3, 8),
        (4, 8),
        (5, 8),
        (6, 8),
        (7, 8),
    ],
    // Quarter turn clockwise, left-right mirror.
    symmetry_generators: &[&[2, 3, 4, 5, 6, 7, 0, 1, 8], &[2, 1, 0, 7, 6, 5, 4, 3, 8]],
};

/// Every board, in the order of [`Board::NAMES`].
const SPECS: [&BoardSpec; 4] = [&STANDARD_SPEC, &DIAGONALS_SPEC, &SIX_SPEC, &THREE_SPEC];

static BOARDS: LazyLock<Vec<Board>> =
    LazyLock::new(|| SPECS.iter().map(|s| Board::from_spec(s)).collect());

impl Board {
    /// The names of the supported boards (`board=NAME`).
    pub const NAMES: [&'static str; 4] = ["standard", "diagonals", "six", "three"];

    /// The standard 24-point board.
    pub fn standard() -> &'static Board {
        &BOARDS[0]
    }

    /// The board called `name`, if it is supported.
    pub fn by_name(name: &str) -> Option<&'static Board> {
        BOARDS.iter().find(|b| b.name == name)
    }

    /// Whether `stones` fill some line.
    #[inline]
    pub fn has_mill(&self, stones: PointSet) -> bool {
        self.lines.iter().any(|l| l.is_subset(stones))
    }

    /// Columns and rows of the coordinate grid (7 for the 24-point boards,
    /// 5 for six men's, 3 for three men's).
    pub fn grid_size(&self) -> usize {
        self.coords
            .iter()
            .map(|c| {
                let b = c.as_bytes();
                ((b[0] - b'a') as usize).max((b[1] - b'1') as usize) + 1
            })
            .max()
            .unwrap_or(0)
    }

    /// Derives a board from its spec. Panics on an inconsistent spec (a
    /// programming error, caught by the geometry tests).
    pub fn from_spec(spec: &BoardSpec) -> Board {
        let size = spec.coords.len();
        assert!(size <= MAX_POINTS);
        let pt = |n: u8| {
            Point::new(n)
                .filter(|p| p.index() < size)
                .expect("point in spec")
        };
        let base = spec.extends.map_or(&[][..], |b| b.edges);
        let base_lines = spec.extends.map_or(&[][..], |b| b.lines);
        let mut neighbours = [PointSet::EMPTY; MAX_POINTS];
        let mut edges = Vec::new();
        for &(a, b) in base.iter().chain(spec.edges) {
            let (a, b) = (pt(a.min(b)), pt(a.max(b)));
            neighbours[a.index()] = neighbours[a.index()].with(b);
            neighbours[b.index()] = neighbours[b.index()].with(a);
            edges.push((a, b));
        }
        let lines: Vec<PointSet> = base_lines
            .iter()
            .chain(spec.lines)
            .map(|l| l.iter().map(|&n| pt(n)).collect())
            .collect();
        let lines_through = (0..size)
            .map(|i| {
                let p = pt(i as u8);
                lines.iter().copied().filter(|l| l.contains(p)).collect()
            })
            .collect();
        // Close the generators under composition.
        let gens: Vec<Symmetry> = spec
            .symmetry_generators
            .iter()
            .map(|g| {
                let mut s = Symmetry::identity();
                s.map[..size].copy_from_slice(g);
                s
            })
            .collect();
        let mut symmetries = vec![Symmetry::identity()];
        let mut i = 0;
        while i < symmetries.len() {
            for g in &gens {
                let s = g.after(&symmetries[i]);
                if !symmetries.contains(&s) {
                    symmetries.push(s);
                }
            }
            i += 1;
        }
        Board {
            name: spec.name,
            size: size as u8,
            all: PointSet::first(size as u8),
            coords: spec.coords.to_vec(),
            neighbours,
            lines,
            lines_through,
            edges,
            symmetries,
        }
    }

    /// The points of the board in order.
    pub fn points(&self) -> impl Iterator<Item = Point> + use<> {
        (0..self.size).map(Point)
    }

    /// The coordinate label of `p`.
    pub fn coord(&self, p: Point) -> &'static str {
        self.coords[p.index()]
    }

    /// The point with coordinate label `s` (case-insensitive).
    pub fn point_by_coord(&self, s: &str) -> Option<Point> {
        let s = s.to_ascii_lowercase();
        self.coords
            .iter()
            .position(|c| *c == s)
            .map(|i| Point(i as u8))
    }

    /// The point numbered `n`, if the board has it.
    pub fn point(&self, n: u8) -> Option<Point> {
        (n < self.size).then_some(Point(n))
    }

    /// Number of lines through `p` that are full of `stones` (`p` included).
    #[inline]
    pub fn mills_through(&self, p: Point, stones: PointSet) -> u32 {
        self.lines_through[p.index()]
            .iter()
            .filter(|l| l.is_subset(stones))
            .count() as u32
    }

    /// The stones of `stones` that stand in a full line.
    #[inline]
    pub fn in_mills(&self, stones: PointSet) -> PointSet {
        self.lines
            .iter()
            .filter(|l| l.is_subset(stones))
            .fold(PointSet::EMPTY, |acc, l| acc.union(*l))
    }

    /// The union of the neighbours of the points of `s`.
    #[inline]
    pub fn neighbours_of(&self, s: PointSet) -> PointSet {
        s.iter().fold(PointSet::EMPTY, |acc, p| {
            acc.union(self.neighbours[p.index()])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_board_shape() {
        let b = Board::standard();
        assert_eq!(b.size, 24);
        assert_eq!(b.edges.len(), 32);
        assert_eq!(b.lines.len(), 16);
        assert_eq!(b.symmetries.len(), 16);
        for p in b.points() {
            let n = b.neighbours[p.index()].len();
            assert!((2..=4).contains(&n));
            assert_eq!(b.lines_through[p.index()].len(), 2);
        }
    }

    #[test]
    fn other_boards_shape() {
        // (name, points, lines, edges, symmetries)
        for (name, points, lines, edges, syms) in [
            ("diagonals", 24, 20, 40, 16),
            ("six", 16, 8, 20, 16),
            ("three", 9, 8, 16, 8),
        ] {
            let b = Board::by_name(name).unwrap();
            assert_eq!(
                (b.size, b.lines.len(), b.edges.len(), b.symmetries.len()),
                (points, lines, edges, syms),
                "{name}"
            );
            assert_eq!(Board::NAMES.iter().filter(|n| **n == name).count(), 1);
            for p in b.points() {
                assert_eq!(b.point_by_coord(b.coord(p)), Some(p), "{name}");
            }
        }
        assert_eq!(Board::by_name("three").unwrap().grid_size(), 3);
        assert_eq!(Board::by_name("six").unwrap().grid_size(), 5);
        assert_eq!(Board::by_name("diagonals").unwrap().grid_size(), 7);
        assert!(Board::by_name("hex").is_none());
    }

    #[test]
    fn symmetries_keep_lines_and_edges() {
        for b in Board::NAMES.map(|n| Board::by_name(n).unwrap()) {
            for s in &b.symmetries {
                for l in &b.lines {
                    assert!(b.lines.contains(&s.apply_set(*l)), "{s:?} breaks a line");
                }
                for &(x, y) in &b.edges {
                    assert!(b.neighbours[s.apply(x).index()].contains(s.apply(y)));
                }
                // a permutation
                assert_eq!(s.apply_set(b.all), b.all);
            }
        }
    }

    #[test]
    fn symmetries_form_a_group() {
        for b in Board::NAMES.map(|n| Board::by_name(n).unwrap()) {
            let syms = &b.symmetries;
            for (i, a) in syms.iter().enumerate() {
                for (j, c) in syms.iter().enumerate() {
                    if i != j {
                        assert_ne!(a, c);
                    }
                    assert!(syms.contains(&a.after(c)));
                }
                assert!(syms.contains(&a.inverse()));
            }
        }
    }

    #[test]
    fn coordinates_round_trip() {
        let b = Board::standard();
        for p in b.points() {
            assert_eq!(b.point_by_coord(b.coord(p)), Some(p));
        }
        assert_eq!(b.point_by_coord("D7"), b.point(1));
        assert_eq!(b.point_by_coord("d4"), None);
    }
}
