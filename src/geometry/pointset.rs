//! Sets of board points as a bit mask.

use super::Point;
use std::fmt;

/// A set of points, one bit per point (bit `n` is point `n`).
///
/// ```
/// use millbase::{Point, PointSet};
/// let s = PointSet::EMPTY.with(Point::new(3).unwrap());
/// assert!(s.contains(Point::new(3).unwrap()));
/// assert_eq!(s.len(), 1);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PointSet(pub u32);

impl PointSet {
    /// The empty set.
    pub const EMPTY: PointSet = PointSet(0);

    /// The set of the first `n` points.
    pub const fn first(n: u8) -> PointSet {
        PointSet(((1u64 << n) - 1) as u32)
    }

    /// The set holding only `p`.
    pub const fn single(p: Point) -> PointSet {
        PointSet(1 << p.index())
    }

    /// Whether `p` is in the set.
    pub const fn contains(self, p: Point) -> bool {
        self.0 & (1 << p.index()) != 0
    }

    /// The set with `p` added.
    #[must_use]
    pub const fn with(self, p: Point) -> PointSet {
        PointSet(self.0 | (1 << p.index()))
    }

    /// The set with `p` taken out.
    #[must_use]
    pub const fn without(self, p: Point) -> PointSet {
        PointSet(self.0 & !(1 << p.index()))
    }

    /// Points in either set.
    #[must_use]
    pub const fn union(self, other: PointSet) -> PointSet {
        PointSet(self.0 | other.0)
    }

    /// Points in both sets.
    #[must_use]
    pub const fn intersect(self, other: PointSet) -> PointSet {
        PointSet(self.0 & other.0)
    }

    /// Points of `self` not in `other`.
    #[must_use]
    pub const fn minus(self, other: PointSet) -> PointSet {
        PointSet(self.0 & !other.0)
    }

    /// Whether every point of `self` is in `other`.
    pub const fn is_subset(self, other: PointSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of points in the set.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The points in increasing order.
    pub fn iter(self) -> PointSetIter {
        PointSetIter(self.0)
    }
}

/// Iterator over the points of a [`PointSet`], lowest first.
#[derive(Clone)]
pub struct PointSetIter(u32);

impl Iterator for PointSetIter {
    type Item = Point;
    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let p = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Point::new_unchecked(p))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for PointSetIter {}

impl IntoIterator for PointSet {
    type Item = Point;
    type IntoIter = PointSetIter;
    fn into_iter(self) -> PointSetIter {
        self.iter()
    }
}

impl FromIterator<Point> for PointSet {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Self {
        iter.into_iter().fold(PointSet::EMPTY, PointSet::with)
    }
}

impl fmt::Debug for PointSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|p| p.index()))
            .finish()
    }
}
