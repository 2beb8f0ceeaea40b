//! The rule sets found under a table folder, and what of each is built.
//!
//! Every folder under `db` holding tables names its rule set in the
//! tables' headers; a folder serves every game whose tables it holds (a
//! folder's tables are shared by all stone counts of its board, see
//! [`TableFolder`]). A game is listed when its whole moving phase is there,
//! with a flag saying whether its placing phase is too.

use crate::geometry::Board;
use crate::index::moving_subspaces;
use crate::index::placing_subspaces;
use crate::rules::Rules;
use crate::table::{TableFile, TableFolder};
use serde::Serialize;
use std::path::Path;

/// A board as the web page draws it.
#[derive(Clone, Debug, Serialize)]
pub struct BoardInfo {
    /// Name (`standard`, `diagonals`, `six`, `three`).
    pub name: String,
    /// Number of points.
    pub points: u8,
    /// Width and height of the coordinate grid (7, 5 or 3).
    pub grid: usize,
    /// Coordinate label of each point (`a7`), in point order.
    pub coords: Vec<String>,
    /// Adjacent points (point numbers).
    pub edges: Vec<[u8; 2]>,
    /// The lines of three.
    pub lines: Vec<Vec<u8>>,
}

impl BoardInfo {
    /// The drawing data of a board.
    pub fn of(board: &Board) -> BoardInfo {
        BoardInfo {
            name: board.name.to_string(),
            points: board.size,
            grid: board.grid_size(),
            coords: board.coords.iter().map(|c| c.to_string()).collect(),
            edges: board
                .edges
                .iter()
                .map(|&(a, b)| [a.number(), b.number()])
                .collect(),
            lines: board
                .lines
                .iter()
                .map(|l| l.into_iter().map(|p| p.number()).collect())
                .collect(),
        }
    }
}

/// Which phases of a game are built.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Phases {
    /// Every moving-phase table of the game is there.
    pub moving: bool,
    /// Every placing-phase table of the game is there (queries from the
    /// start work).
    pub placing: bool,
}

/// A game the tables answer.
#[derive(Clone, Debug, Serialize)]
pub struct RuleSetInfo {
    /// Short name, as `--rules` takes it (`standard`, `standard,stones=5`).
    pub rules: String,
    /// Canonical text naming every option.
    pub canonical: String,
    /// The folder under `db` holding its tables.
    pub folder: String,
    /// Board name (see `boards`).
    pub board: String,
    /// Stones of White and Black.
    pub stones: [u8; 2],
    /// The N-move rule's N, if any.
    pub nmove: Option<u16>,
    /// What is built.
    pub phases: Phases,
}

/// A folder of tables found under `db`.
#[derive(Clone, Debug, Serialize)]
pub struct FolderInfo {
    /// Folder name under `db`.
    pub folder: String,
    /// Short name of the rule set its tables were built for.
    pub rules: String,
    /// Moving-phase tables present.
    pub moving_tables: usize,
    /// Placing-phase tables present.
    pub placing_tables: usize,
}

/// Everything found under a table folder.
#[derive(Clone, Debug, Serialize)]
pub struct Catalog {
    /// The folders with tables.
    pub folders: Vec<FolderInfo>,
    /// The games whose moving phase is complete, largest first per folder.
    pub rule_sets: Vec<RuleSetInfo>,
}

impl Catalog {
    /// Scans `db` (an unreadable or missing folder is an empty catalog).
    pub fn scan(db: &Path) -> Catalog {
        let mut dirs: Vec<_> = std::fs::read_dir(db)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        dirs.sort();
        let mut catalog = Catalog {
            folders: Vec::new(),
            rule_sets: Vec::new(),
        };
        for dir in dirs {
            let Some(rules) = folder_rules(&dir) else {
                continue;
            };
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // Only a folder that is its rule set's own home (not, say, a
            // copy under another name) is served.
            if rules.folder_name() != name {
                continue;
            }
            let folder = TableFolder::new(db, &rules);
            let present = |s| folder.exists(s);
            let max = rules.max_stones();
            let moving_tables = moving_subspaces(&rules)
                .into_iter()
                .filter(|&s| present(s))
                .count();
            let placing_tables = placing_subspaces(&rules)
                .into_iter()
                .filter(|&s| present(s))
                .count();
            catalog.folders.push(FolderInfo {
                folder: name.clone(),
                rules: rules.short_name(),
                moving_tables,
                placing_tables,
            });
            let mut games = Vec::new();
            for w in (3..=max).rev() {
                for b in (3..=max).rev() {
                    let mut game = rules;
                    game.stones.white = w;
                    game.stones.black = b;
                    if (w + b) > game.board().size || game.family_rules().folder_name() != name {
                        continue;
                    }
                    let folder = TableFolder::new(db, &game);
                    if !moving_subspaces(&game)
                        .into_iter()
                        .all(|s| folder.exists(s))
                    {
                        continue;
                    }
                    let placing = placing_subspaces(&game)
                        .into_iter()
                        .all(|s| folder.exists(s));
                    games.push(RuleSetInfo {
                        rules: game.short_name(),
                        canonical: game.canonical(),
                        folder: name.clone(),
                        board: game.board().name.to_string(),
                        stones: [w, b],
                        nmove: game.nmove,
                        phases: Phases {
                            moving: true,
                            placing,
                        },
                    });
                }
            }
            // Equal hands first (the usual games), then the others.
            games.sort_by_key(|g| (g.stones[0] != g.stones[1], std::cmp::Reverse(g.stones)));
            catalog.rule_sets.extend(games);
        }
        catalog
    }

    /// The boards the listed games use, each once.
    pub fn boards(&self) -> Vec<BoardInfo> {
        let mut out: Vec<BoardInfo> = Vec::new();
        for g in &self.rule_sets {
            if !out.iter().any(|b| b.name == g.board)
                && let Some(b) = Board::by_name(&g.board)
            {
                out.push(BoardInfo::of(b));
            }
        }
        out
    }
}

/// The rule set named in the header of some table of `dir`.
fn folder_rules(dir: &Path) -> Option<Rules> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mbt"))
        .collect();
    files.sort();
    files.iter().find_map(|f| {
        let t = TableFile::open_any(f).ok()?;
        let r = Rules::parse_family(&t.info().rules).ok()?;
        Some(r.family_rules())
    })
}
