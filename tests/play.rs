//! Practical play, the players and matches: the practical choice never
//! gives value away (every position of a sample, against the tables), the
//! ranking and matches are deterministic for a seed, table players never
//! lose a game they did not stand lost in nor let a win go, the alpha-beta
//! player beats random play and finds short wins, and `match` refuses bad
//! arguments clearly.

use crate::common;

use millbase::AlphaBeta;
use millbase::TableSet;
use millbase::practical_moves;
use millbase::{MatchOptions, play_match};
use millbase::{Move, legal_moves};
use millbase::{Player, PlayerKind};
use millbase::{Position, Rules, Value};

const GAME: &str = "standard,stones=5";
const NMOVE: &str = "standard,stones=4,nmove=10";

fn tables(rules: &str) -> (TableSet, Rules) {
    let db = common::shared_db(rules);
    let rules: Rules = rules.parse().unwrap();
    (TableSet::open(db, &rules), rules)
}

/// Whether `chosen` keeps the value of a position whose best move is worth
/// `best`: the fastest win, a draw, or any loss.
fn keeps(best: Value, chosen: Value) -> bool {
    match best {
        Value::Win(_) => chosen == best,
        Value::Draw => chosen == Value::Draw,
        Value::Loss(_) => matches!(chosen, Value::Loss(_)),
    }
}

fn sample(rules: &Rules, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = common::Rng(seed);
    let mut out = Vec::new();
    let mut moves = Vec::new();
    while out.len() < n {
        let p = common::random_position(&mut rng, rules);
        legal_moves(&p, rules, &mut moves);
        if !moves.is_empty() {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_practical_choice_keeps_the_value() {
    for rules in [GAME, "three", NMOVE] {
        let (t, r) = tables(rules);
        let mut decisive = 0;
        for (i, p) in sample(&r, 300, 7).iter().enumerate() {
            let counter = if r.nmove.is_some() && p.is_moving_phase() {
                (i % 10) as u16
            } else {
                0
            };
            // Positions no game reaches have no tables.
            let Ok(exact) = t.probe_moves_at(p, counter) else {
                continue;
            };
            let ranked = practical_moves(&t, p, counter).unwrap();
            assert_eq!(ranked.len(), exact.len(), "{rules}: every move ranked");
            let best = exact[0].value;
            let choice = &ranked[0];
            assert_eq!(choice.rank, Some(1), "{rules}: {p:?}");
            for m in &ranked {
                // Each move keeps the value the tables give it.
                let listed = exact.iter().find(|e| e.mv == m.mv).unwrap();
                assert_eq!(m.value, listed.value);
                assert_eq!(m.rank.is_some(), keeps(best, m.value), "{rules}: {m:?}");
                assert!(m.errors <= m.replies && m.score <= 1000);
            }
            assert!(keeps(best, choice.value), "{rules}: {p:?}: {choice:?}");
            decisive += (choice.errors > 0) as u32;
            // Deterministic.
            assert_eq!(ranked, practical_moves(&t, p, counter).unwrap());
        }
        assert!(decisive > 0, "{rules}: some choice sets a trap");
    }
}

#[test]
fn table_players_never_lose_a_game_they_held() {
    for (rules, games) in [(GAME, 6), ("three", 8), (NMOVE, 6)] {
        let (t, r) = tables(rules);
        let options = MatchOptions {
            first: PlayerKind::Perfect,
            second: PlayerKind::Practical,
            games,
            seed: 11,
            starts: Vec::new(),
            max_plies: 300,
        };
        let result = play_match(Some(&t), &r, &options, &|_| {}).unwrap();
        for g in &result.games {
            assert_eq!((g.wins_let_go, g.draws_lost), (0, 0), "{rules}: {g:?}");
        }
        if rules == GAME {
            // The start is a draw: no one wins.
            assert_eq!(result.counts(), (0, games, 0), "{rules}");
        }
        // The same seed plays the same games.
        let again = play_match(Some(&t), &r, &options, &|_| {}).unwrap();
        let plies = |m: &millbase::MatchResult| {
            m.games
                .iter()
                .map(|g| (g.outcome, g.plies))
                .collect::<Vec<_>>()
        };
        assert_eq!(plies(&result), plies(&again), "{rules}");
    }
}

#[test]
fn practical_play_punishes_random_play_and_never_loses_a_held_game() {
    let (t, r) = tables(GAME);
    let options = MatchOptions {
        first: PlayerKind::Practical,
        second: PlayerKind::Random,
        games: 10,
        seed: 3,
        starts: Vec::new(),
        max_plies: 400,
    };
    let result = play_match(Some(&t), &r, &options, &|_| {}).unwrap();
    let (w, _, l) = result.counts();
    assert_eq!(l, 0);
    assert!(w >= 8, "{:?}", result.counts());
    assert!(result.games.iter().all(|g| g.wins_let_go == 0));
}

#[test]
fn alphabeta_beats_random_play() {
    for rules in [GAME, "three"] {
        let r: Rules = rules.parse().unwrap();
        let options = MatchOptions {
            first: PlayerKind::AlphaBeta(5_000),
            second: PlayerKind::Random,
            games: 12,
            seed: 5,
            starts: Vec::new(),
            max_plies: 400,
        };
        let result = play_match(None, &r, &options, &|_| {}).unwrap();
        let (w, _, l) = result.counts();
        assert!(w >= 9 && l <= 1, "{rules}: {:?}", result.counts());
    }
}

/// Positions the tables call won in 3 plies: alpha-beta finds a winning
/// move there (a mill that wins in 3 plies), within a small budget.
#[test]
fn alphabeta_finds_wins_in_three() {
    let (t, r) = tables(GAME);
    let mut rng = common::Rng(99);
    let mut found = 0;
    let mut tries = 0;
    while found < 12 {
        tries += 1;
        assert!(tries < 200_000, "positions won in 3 are rare");
        let p = common::random_position(&mut rng, &r);
        if t.probe(&p).ok() != Some(Value::Win(3)) {
            continue;
        }
        found += 1;
        let mut search = AlphaBeta::new(r);
        let mv: Move = search.best_move(&p, 50_000, |_| 0).unwrap();
        let after = t.probe(&p.play(&mv)).unwrap();
        assert!(
            matches!(after, Value::Loss(d) if d <= 2),
            "{}: alpha-beta played {mv:?}, the opponent then stands {after:?}",
            p.board_string(&r)
        );
    }
}

#[test]
fn players_parse_and_bad_match_arguments_are_clear() {
    assert_eq!("alphabeta:200k".parse(), Ok(PlayerKind::AlphaBeta(200_000)));
    assert_eq!("alphabeta:2M".parse(), Ok(PlayerKind::AlphaBeta(2_000_000)));
    assert_eq!("alphabeta:150".parse(), Ok(PlayerKind::AlphaBeta(150)));
    for bad in ["alphabeta:0", "alphabeta:x", "strong", "alphabeta"] {
        let e = bad.parse::<PlayerKind>().unwrap_err();
        assert!(e.contains("perfect, practical"), "{bad}: {e}");
    }
    // A player made for a game with no move returns none.
    let r: Rules = "three".parse().unwrap();
    let over = millbase::parse_position("WWW.B.B./B b 0 0", &r)
        .unwrap()
        .position;
    let mut random = Player::new(PlayerKind::Random, r, 1);
    assert_eq!(random.choose(None, &over, 0).unwrap(), None);

    let db = common::shared_db("three");
    let d = db.to_str().unwrap();
    let err = |args: &[&str]| {
        let o = common::run(args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, e) = err(&["match", "--rules", "three", "--db", d, "strong", "random"]);
    assert_eq!(code, Some(2));
    assert!(e.contains("unknown player `strong`"), "{e}");
    let (code, e) = err(&[
        "match", "--rules", "three", "--db", d, "perfect", "random", "--games", "0",
    ]);
    assert_eq!(code, Some(2));
    assert!(e.contains("--games 0"), "{e}");
    let (code, e) = err(&[
        "match",
        "--rules",
        "six",
        "--db",
        d,
        "practical",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(code, Some(1));
    assert!(e.contains("millbase build --rules six"), "{e}");
    // A match the tables need not: alpha-beta against random on any rules.
    let o = common::run_ok(&[
        "match",
        "--rules",
        "three",
        "--db",
        d,
        "practical",
        "alphabeta:2k",
        "--games",
        "4",
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["games"], 4);
    assert_eq!(
        j["wins"].as_u64().unwrap() + j["draws"].as_u64().unwrap() + j["losses"].as_u64().unwrap(),
        4
    );
    assert_eq!(j["table_wins_let_go"], 0);
}

#[test]
fn query_marks_the_practical_choice() {
    let db = common::shared_db(GAME);
    let d = db.to_str().unwrap();
    let pos = "WW.W..../B...B.../....WB.. w 0 0";
    let o = common::run_ok(&[
        "query",
        "--rules",
        GAME,
        "--db",
        d,
        "--json",
        "--practical",
        pos,
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let moves = j["moves"].as_array().unwrap();
    let first: Vec<&serde_json::Value> = moves
        .iter()
        .filter(|m| m["practical"]["rank"] == 1)
        .collect();
    assert_eq!(first.len(), 1, "{j}");
    assert_eq!(first[0]["value"], j["value"]);
    assert!(moves.iter().all(|m| m["practical"].is_object()));
    // Without --practical there is no such field.
    let o = common::run_ok(&["query", "--rules", GAME, "--db", d, "--json", pos]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(j["moves"][0].get("practical").is_none());
    let o = common::run_ok(&["query", "--rules", GAME, "--db", d, "--practical", pos]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        text.lines().filter(|l| l.starts_with('*')).count(),
        1,
        "{text}"
    );
}
