//! The perfect hash against brute force.

use crate::common;

use common::Rng;
use millbase::{Board, PointSet};
use millbase::{Indexer, check_index};
use rayon::prelude::*;

/// Independent symmetry application: one image bit per point.
fn image(map: &[u8], s: u32) -> u32 {
    let mut out = 0;
    let mut t = s;
    while t != 0 {
        out |= 1 << map[t.trailing_zeros() as usize];
        t &= t - 1;
    }
    out
}

fn sets(n: u32, k: u32) -> Vec<u32> {
    (0u32..1 << n).filter(|s| s.count_ones() == k).collect()
}

/// Classes of `w`/`b` positions of `board`, counted as the positions that
/// are the lexicographically smallest of their images.
fn brute_force_classes_on(board: &Board, w: u32, b: u32) -> u64 {
    let maps: Vec<&[u8]> = board.symmetries.iter().map(|s| &s.map[..]).collect();
    let n = board.size as u32;
    let us_sets = sets(n, w);
    let them_sets = sets(n, b);
    us_sets
        .par_iter()
        .map(|&us| {
            let mut n = 0;
            for &them in &them_sets {
                if them & us != 0 {
                    continue;
                }
                let minimal = maps
                    .iter()
                    .all(|m| (image(m, us), image(m, them)) >= (us, them));
                n += minimal as u64;
            }
            n
        })
        .sum()
}

fn brute_force_classes(n_us: u32, n_them: u32) -> u64 {
    brute_force_classes_on(Board::standard(), n_us, n_them)
}

#[test]
fn other_boards_class_counts_and_round_trips() {
    // Three men's: every subspace of the whole game (placing ones too).
    let three = Board::by_name("three").unwrap();
    let mut cases: Vec<(&Board, u8, u8)> = Vec::new();
    for n_us in 0..=3 {
        for n_them in 0..=3 {
            cases.push((three, n_us, n_them));
        }
    }
    let six = Board::by_name("six").unwrap();
    for (n_us, n_them) in [
        (0, 0),
        (1, 0),
        (2, 1),
        (3, 3),
        (4, 3),
        (3, 4),
        (4, 4),
        (5, 3),
        (6, 6),
    ] {
        cases.push((six, n_us, n_them));
    }
    let diagonals = Board::by_name("diagonals").unwrap();
    for (n_us, n_them) in [(3, 3), (4, 3), (3, 4), (2, 2)] {
        cases.push((diagonals, n_us, n_them));
    }
    for (board, n_us, n_them) in cases {
        let idx = Indexer::for_board(board).subspace(n_us, n_them);
        let brute = brute_force_classes_on(board, n_us as u32, n_them as u32);
        assert_eq!(idx.class_count(), brute, "{} {n_us}-{n_them}", board.name);
        let check = check_index(&idx);
        assert!(
            check.errors.is_empty(),
            "{} {n_us}-{n_them}: {:?}",
            board.name,
            check.errors
        );
        assert_eq!(
            check.canonical, brute,
            "{} {n_us}-{n_them}: used slots",
            board.name
        );
    }
    // Orbits of the empty set and of the whole board: one each.
    assert_eq!(Indexer::for_board(three).orbit_count(0), 1);
    assert_eq!(Indexer::for_board(six).orbit_count(16), 1);
    // Large subspaces of the 24-point diagonals board, at random.
    let indexer = Indexer::for_board(diagonals);
    let mut rng = Rng(11);
    for (n_us, n_them) in [(12, 12), (9, 8), (12, 3)] {
        let idx = indexer.subspace(n_us, n_them);
        for _ in 0..5_000 {
            let us = rng.points(diagonals.all, n_us as u32);
            let them = rng.points(diagonals.all.minus(us), n_them as u32);
            let slot = idx.slot(us, them);
            assert!(idx.is_canonical(slot));
            for s in &diagonals.symmetries {
                assert_eq!(idx.slot(s.apply_set(us), s.apply_set(them)), slot);
            }
        }
    }
}

#[test]
fn class_counts_match_brute_force() {
    let indexer = Indexer::for_board(Board::standard());
    for (n_us, n_them) in [(3, 3), (4, 3), (3, 4), (5, 3), (4, 4)] {
        let idx = indexer.subspace(n_us, n_them);
        let brute = brute_force_classes(n_us as u32, n_them as u32);
        assert_eq!(idx.class_count(), brute, "{n_us}-{n_them}");
        let check = check_index(&idx);
        assert!(
            check.errors.is_empty(),
            "{n_us}-{n_them}: {:?}",
            check.errors
        );
        assert_eq!(check.canonical, brute, "{n_us}-{n_them}: used slots");
    }
}

#[test]
fn published_figures() {
    let indexer = Indexer::for_board(Board::standard());
    assert_eq!(indexer.subspace(4, 4).class_count(), 3_225_597);
    assert_eq!(indexer.subspace(4, 3).class_count(), 760_398);
    assert_eq!(indexer.subspace(3, 4).class_count(), 760_398);
    assert_eq!(indexer.subspace(8, 8).class_count(), 591_726_690);
    assert!(indexer.subspace(8, 8).slots() <= 603_332_730);
    let total: u64 = (3..=9)
        .flat_map(|n_us| (3..=9).map(move |n_them| (n_us, n_them)))
        .map(|(n_us, n_them)| indexer.subspace(n_us, n_them).class_count())
        .sum();
    assert_eq!(total, 8_904_593_601);
    let orbits: Vec<u64> = (3..=9).map(|w| indexer.orbit_count(w)).collect();
    assert_eq!(orbits, [158, 757, 2830, 8774, 22188, 46879, 82880]);
    assert!(indexer.memory_bytes() < 100_000_000);
}

#[test]
fn random_round_trips_on_large_subspaces() {
    let board = Board::standard();
    let indexer = Indexer::for_board(board);
    let mut rng = Rng(7);
    for (w, b) in [(8, 8), (9, 9), (9, 3), (3, 9), (7, 8)] {
        let idx = indexer.subspace(w, b);
        for _ in 0..20_000 {
            let us = rng.points(board.all, w as u32);
            let them = rng.points(board.all.minus(us), b as u32);
            let slot = idx.slot(us, them);
            assert!(slot < idx.slots());
            assert!(idx.is_canonical(slot));
            let (cu, ct) = idx.position(slot).unwrap();
            // The canonical position is one of the images.
            assert!(
                board
                    .symmetries
                    .iter()
                    .any(|s| s.apply_set(us) == cu && s.apply_set(them) == ct),
                "{w}-{b}: slot {slot} holds a position of another class"
            );
            for s in &board.symmetries {
                assert_eq!(idx.slot(s.apply_set(us), s.apply_set(them)), slot);
            }
        }
    }
    // Slot past the end.
    assert!(indexer.subspace(3, 3).position(1 << 40).is_none());
    let _ = PointSet::EMPTY;
}
