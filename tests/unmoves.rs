//! Move/unmove duality over random positions and every rule option.

use crate::common;

use common::{Rng, random_position, rule_variants};
use millbase::Position;
use millbase::{legal_moves, unmoves};

#[test]
fn every_move_is_found_among_the_unmoves_of_its_result() {
    let mut rng = Rng(1);
    let (mut moves, mut preds) = (Vec::new(), Vec::new());
    for rules in rule_variants() {
        let mut checked = 0;
        for _ in 0..2000 {
            let p = random_position(&mut rng, &rules);
            legal_moves(&p, &rules, &mut moves);
            for m in &moves {
                let q = p.play(m);
                Position::new(q.stones, q.hand, q.to_move, &rules).unwrap_or_else(|e| {
                    panic!("{rules}: {p:?} + {m:?} gives an illegal position: {e}")
                });
                unmoves(&q, &rules, &mut preds);
                assert!(
                    preds.contains(&(*m, p)),
                    "{rules}: move {m:?} from {} missing among the unmoves of {}",
                    p.board_string(&rules),
                    q.board_string(&rules)
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "{rules}: only {checked} moves checked");
    }
}

#[test]
fn every_unmove_is_a_legal_move() {
    let mut rng = Rng(2);
    let (mut moves, mut preds) = (Vec::new(), Vec::new());
    for rules in rule_variants() {
        let mut checked = 0;
        for _ in 0..2000 {
            let q = random_position(&mut rng, &rules);
            unmoves(&q, &rules, &mut preds);
            for (m, p) in &preds {
                legal_moves(p, &rules, &mut moves);
                assert!(
                    moves.contains(m),
                    "{rules}: unmove {m:?} of {} is not a legal move of {}",
                    q.board_string(&rules),
                    p.board_string(&rules)
                );
                assert_eq!(p.play(m), q, "{rules}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "{rules}: only {checked} unmoves checked");
    }
}

#[test]
fn removal_rules_differ_where_all_stones_are_in_mills() {
    use millbase::parse_position;
    // White a7 d7 a1 flies; black b6 d6 f6 and c5 d5 e5 are both mills.
    let pos = "WW....W./BBB...../BBB..... w 0 0";
    let count = |spec: &str| {
        let rules = spec.parse().unwrap();
        let p = parse_position(pos, &rules).unwrap().position;
        let mut moves = Vec::new();
        legal_moves(&p, &rules, &mut moves);
        moves.iter().filter(|m| !m.removed.is_empty()).count()
    };
    // a1-g7 closes a7-d7-g7.
    let standard = count("standard");
    let strict = count("standard,protection=strict");
    let none = count("standard,protection=none");
    assert!(standard > 0);
    assert_eq!(
        strict, 0,
        "strict: all black stones are in mills, so no removal"
    );
    assert_eq!(
        none, standard,
        "all in mills: standard allows any, as none does"
    );
}
