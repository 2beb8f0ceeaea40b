//! A rule set's table folder: where each subspace's table lives, opening
//! and loading tables, whether a table is finished (for resuming), writing
//! tables and the stats file. Every phase (the moving-phase build, the
//! placing build, `check`, `query`, `stats`) goes through it.
//!
//! Layout under the database folder `db`: a position's value does not
//! depend on how many stones the game started with (only on the board,
//! the stones in hand and the side to move), so tables are shared by every
//! stone count of a board. Placing-phase tables live in the folder of
//! [`Rules::family_rules`] (the rule set with the board's preset stone
//! count, or the game's when larger), moving-phase tables in that of [`Rules::moving_rules`] (the
//! same, also without Lasker moves, which only matter while stones are in
//! hand); for most rule sets the two are one folder, e.g. `standard` for
//! `standard,stones=5/3`. Folders are named by the short name
//! ([`Rules::folder_name`]) and each header names its rules in full. Files
//! are `<subspace>.mbt` (`4-3.mbt`, `8-7-1-2.mbt`), and `stats.json` lists
//! the moving-phase tables.

use super::{StatsFile, SubspaceStats, Table, TableError, TableFile};
use crate::index::{Indexer, Subspace};
use crate::rules::Rules;
use std::path::{Path, PathBuf};

/// The tables of one rule set under a database folder.
#[derive(Clone, Debug)]
pub struct TableFolder {
    db: PathBuf,
    rules: Rules,
}

impl TableFolder {
    /// The tables of `rules` under `db` (nothing is read or made yet).
    pub fn new(db: &Path, rules: &Rules) -> TableFolder {
        TableFolder {
            db: db.to_path_buf(),
            rules: *rules,
        }
    }

    /// The tables of another rule set under the same database folder.
    pub fn with_rules(&self, rules: &Rules) -> TableFolder {
        TableFolder::new(&self.db, rules)
    }

    /// The database folder.
    pub fn db(&self) -> &Path {
        &self.db
    }

    /// The rule set.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The folder of the placing-phase tables this rule set uses.
    pub fn dir(&self) -> PathBuf {
        self.db.join(self.rules.family_rules().folder_name())
    }

    /// The folder of the moving-phase tables this rule set uses.
    pub fn moving_dir(&self) -> PathBuf {
        self.db.join(self.rules.moving_rules().folder_name())
    }

    /// The rule set a subspace's table is made for (and names in its
    /// header).
    pub fn table_rules(&self, s: Subspace) -> Rules {
        if s.is_moving() {
            self.rules.moving_rules()
        } else {
            self.rules.family_rules()
        }
    }

    /// The file of one subspace's table.
    pub fn path(&self, s: Subspace) -> PathBuf {
        let dir = if s.is_moving() {
            self.moving_dir()
        } else {
            self.dir()
        };
        dir.join(format!("{s}.mbt"))
    }

    /// Whether the file of `s` exists (sound or not).
    pub fn exists(&self, s: Subspace) -> bool {
        self.path(s).exists()
    }

    /// Slots of subspace `s` on this rule set's board.
    pub fn slots(&self, s: Subspace) -> u64 {
        Indexer::for_board(self.rules.board())
            .subspace(s.us, s.them)
            .slots()
    }

    /// Opens a table, checking its header and block index.
    pub fn open(&self, s: Subspace) -> Result<TableFile, TableError> {
        TableFile::open(&self.path(s), &self.table_rules(s), s, self.slots(s))
    }

    /// Reads and decodes a table, checking every block.
    pub fn load(&self, s: Subspace) -> Result<Table, TableError> {
        Table::read(&self.path(s), &self.table_rules(s), s, self.slots(s))
    }

    /// Whether the table of `s` is on disk and sound (header and every
    /// checksum): a resumed build skips it.
    pub fn is_finished(&self, s: Subspace) -> bool {
        self.open(s).and_then(|t| t.verify()).is_ok()
    }

    /// For a moving-phase subspace missing here, links (or copies) the
    /// sound table of the same subspace from the folder of the board's
    /// preset stone count ([`Rules::preset_moving_rules`]), which holds the
    /// same values; returns whether the table is now here and sound. A
    /// 10-stone build so reuses the 9-stone tables instead of recomputing
    /// them.
    pub fn adopt(&self, s: Subspace) -> bool {
        let preset = self.with_rules(&self.rules.preset_moving_rules());
        if !s.is_moving()
            || preset.moving_dir() == self.moving_dir()
            || self.exists(s)
            || !preset.is_finished(s)
        {
            return false;
        }
        let (from, to) = (preset.path(s), self.path(s));
        let tmp = to.with_extension("adopt");
        let _ = std::fs::remove_file(&tmp);
        let placed = std::fs::create_dir_all(self.moving_dir())
            .and_then(|_| {
                std::fs::hard_link(&from, &tmp).or_else(|_| std::fs::copy(&from, &tmp).map(drop))
            })
            .and_then(|_| std::fs::rename(&tmp, &to));
        placed.is_ok() && self.is_finished(s)
    }

    /// Writes a finished table (through a temporary file, read back and
    /// checked, then renamed), making its folder if needed.
    pub fn write(&self, table: &Table, level: i32) -> Result<(), TableError> {
        let path = self.path(table.subspace);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| TableError::Io(dir.to_path_buf(), e))?;
        }
        table.write(&path, &self.table_rules(table.subspace), level)
    }

    /// The stats file of the moving-phase tables.
    pub fn stats_path(&self) -> PathBuf {
        self.moving_dir().join("stats.json")
    }

    /// The stats file, if it is there, readable and made for these rules'
    /// moving phase.
    fn read_stats_file(&self) -> Option<StatsFile> {
        let bytes = std::fs::read(self.stats_path()).ok()?;
        let file: StatsFile = serde_json::from_slice(&bytes).ok()?;
        (file.rules == self.rules.moving_rules().canonical()).then_some(file)
    }

    /// The rows of the stats file, if it is there, readable and made for
    /// these rules' moving phase.
    pub fn read_stats(&self) -> Option<Vec<SubspaceStats>> {
        self.read_stats_file().map(|f| f.subspaces)
    }

    /// Stats of the given subspaces' tables: a moving-phase table's row
    /// from the stats file when the table is the one counted there (same
    /// file checksum), else counted from the table (read and checked).
    pub fn stats_of(&self, subs: &[Subspace]) -> Result<Vec<SubspaceStats>, TableError> {
        Ok(self.rows_of(subs, &[], self.read_stats_file())?.0)
    }

    /// Rows and file checksums for `subs`: from `fresh` (rows just
    /// counted by a build), else from `file` when the checksum matches,
    /// else counted.
    fn rows_of(
        &self,
        subs: &[Subspace],
        fresh: &[SubspaceStats],
        file: Option<StatsFile>,
    ) -> Result<(Vec<SubspaceStats>, Vec<u64>), TableError> {
        let file = file.unwrap_or(StatsFile {
            rules: String::new(),
            subspaces: Vec::new(),
            checksums: Vec::new(),
            seals: Vec::new(),
        });
        let mut rows = Vec::new();
        let mut sums = Vec::new();
        for &s in subs {
            let name = s.to_string();
            // Opening checks the header and the block index against the
            // file checksum, so a damaged index is found here too.
            let sum = self.open(s)?.info().file_checksum;
            let known = fresh
                .iter()
                .find(|r| r.subspace == name)
                .cloned()
                .or_else(|| {
                    s.is_moving()
                        .then(|| file.sealed_row(&name, sum).cloned())
                        .flatten()
                });
            rows.push(match known {
                Some(r) => r,
                None => SubspaceStats::of_table(&self.load(s)?),
            });
            sums.push(sum);
        }
        Ok((rows, sums))
    }

    /// Writes the stats file for every moving-phase table present and
    /// returns its rows; `fresh` holds rows a build has just counted.
    pub fn write_stats(&self, fresh: &[SubspaceStats]) -> Result<Vec<SubspaceStats>, TableError> {
        let moving = self.rules.moving_rules();
        let present: Vec<Subspace> = crate::index::moving_subspaces(&moving)
            .into_iter()
            .filter(|&s| self.exists(s))
            .collect();
        let (rows, checksums) = self.rows_of(&present, fresh, self.read_stats_file())?;
        let seals = rows
            .iter()
            .zip(&checksums)
            .map(|(r, &c)| StatsFile::seal(r, c))
            .collect();
        let file = StatsFile {
            rules: moving.canonical(),
            subspaces: rows,
            checksums,
            seals,
        };
        let path = self.stats_path();
        let tmp = path.with_extension("tmp");
        let written = std::fs::write(
            &tmp,
            serde_json::to_string_pretty(&file).expect("serialisable"),
        )
        .and_then(|_| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            // A full disk leaves no partial file behind.
            let _ = std::fs::remove_file(&tmp);
            return Err(TableError::Io(path, e));
        }
        Ok(file.subspaces)
    }
}
