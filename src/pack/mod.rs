//! The table pack: what an app ships to play perfectly without the full
//! tables.
//!
//! A pack holds, for every position of a rule set, whether the side to move
//! wins, draws or loses, and, where a game can come back to a position (the
//! moving phase, and the placing phase under Lasker rules), how many plies
//! a lost position lasts. That is enough to convert every win: from a won
//! position, move to the lost position that ends soonest. Its depth is one
//! less than the won position's, whatever the opponent then does the next
//! chosen position ends sooner still, so the win cannot be shuffled away.
//! In the placing phase without Lasker moves every move puts a stone from a
//! hand, so any move that keeps the win makes progress.
//!
//! [`Pack`] reads a pack folder; this module builds without the solver's
//! crates (`--no-default-features`). `millbase pack` writes packs from a
//! built table folder (see [`write_pack`](crate::write_pack)).

pub mod file;
#[cfg(feature = "tables")]
pub mod write;

use crate::cache::{BlockCache, FastMap};
use crate::index::{Indexer, Subspace, all_subspaces};
use crate::moves::{Move, legal_moves};
use crate::position::Position;
use crate::rules::Rules;
use crate::value::Wdl;
use file::PackFile;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Why reading a pack failed.
#[derive(Debug)]
pub enum PackError {
    /// The file could not be read.
    Io(PathBuf, std::io::Error),
    /// The file is not a pack file.
    NotAPack(PathBuf),
    /// A pack file of a format version this reader does not know.
    Version(PathBuf, u32),
    /// The file is damaged (what is wrong with it).
    Damaged(PathBuf, String),
    /// The file was made for other rules.
    Rules {
        /// The file.
        path: PathBuf,
        /// The rules it was made for.
        built: String,
        /// The rules asked for.
        wanted: String,
    },
    /// No pack file covers the subspace of a position.
    NotCovered {
        /// The short name of the rule set.
        rules: String,
        /// The subspace.
        subspace: Subspace,
    },
    /// The N-move rule: a pack holds the pure game only.
    NMove(String),
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            PackError::NotAPack(p) => write!(f, "{}: not a millbase pack file", p.display()),
            PackError::Version(p, v) => write!(
                f,
                "{}: pack format version {v}, this millbase reads version {}",
                p.display(),
                file::VERSION
            ),
            PackError::Damaged(p, what) => write!(f, "{}: {what}", p.display()),
            PackError::Rules {
                path,
                built,
                wanted,
            } => write!(
                f,
                "{}: made for rules `{built}`, not `{wanted}`",
                path.display()
            ),
            PackError::NotCovered { rules, subspace } => write!(
                f,
                "the pack holds no file for subspace {subspace} of `{rules}` \
                 (write it with `millbase pack --rules {rules} --subspaces {subspace}`)"
            ),
            PackError::NMove(rules) => write!(
                f,
                "`{rules}`: a pack holds games without the N-move rule only \
                 (use the tables for the rule's counter)"
            ),
        }
    }
}

impl std::error::Error for PackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PackError::Io(_, e) => Some(e),
            _ => None,
        }
    }
}

/// A position's value as a pack gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackValue {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to the end of the game under best play, where the pack knows
    /// them: a loss in a file with depths, a win whose every losing reply
    /// has a known depth (then the shortest is exact); else `None`.
    pub plies: Option<u32>,
}

/// A legal move with what the pack tells of it, for the side that makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackMove {
    /// The move.
    pub mv: Move,
    /// Win, draw or loss for the mover after the move.
    pub wdl: Wdl,
    /// For a winning move into a position whose depth the pack holds: plies
    /// to the end (one more than the opponent's loss).
    pub plies: Option<u32>,
}

/// A decompressed block: its win/draw/loss fields and, once needed, the
/// depths of its lost slots with the number of lost slots before each word.
struct CachedBlock {
    words: Vec<u64>,
    depths: Option<(Vec<u32>, Vec<u16>)>,
}

/// A block's fields, read from its file; its depths come when needed.
fn load_block(f: &PackFile, block: u32) -> Result<CachedBlock, PackError> {
    Ok(CachedBlock {
        words: f.wdl_block(block)?,
        depths: None,
    })
}

/// One bit per 2-bit field of a word (its low bit): set for a loss (2).
#[inline]
fn loss_bits(word: u64) -> u64 {
    (word >> 1) & !word & 0x5555_5555_5555_5555
}

/// A pack folder of one rule set, opened once; files are opened on first
/// use and decompressed blocks are kept in a bounded cache shared by all
/// threads. Safe to share between threads.
///
/// ```no_run
/// use millbase::{Pack, Position, Rules};
/// let pack = Pack::open(std::path::Path::new("pack"), &Rules::STANDARD).unwrap();
/// let start = Position::start(&Rules::STANDARD);
/// println!("{:?}", pack.probe(&start));
/// println!("{:?}", pack.best_move(&start));
/// ```
pub struct Pack {
    dir: PathBuf,
    rules: Rules,
    indexer: &'static Indexer,
    files: FastMap<Subspace, OnceLock<PackFile>>,
    cache: BlockCache<CachedBlock>,
}

/// Where a position's value is.
enum Lookup {
    /// Decided without a file: the side to move has fewer than 3 stones.
    Lost,
    Slot(Subspace, u64),
}

impl Pack {
    /// The pack of `rules` under `dir` (laid out like a table folder:
    /// `dir/<folder>/<subspace>.mbp`). Nothing is read yet; refused under
    /// the N-move rule.
    pub fn open(dir: &Path, rules: &Rules) -> Result<Pack, PackError> {
        Pack::with_cache(dir, rules, 4096)
    }

    /// Like [`Pack::open`], keeping at most `blocks` decompressed blocks
    /// (each 8 KiB of fields, with its depths once read).
    pub fn with_cache(dir: &Path, rules: &Rules, blocks: usize) -> Result<Pack, PackError> {
        if rules.nmove.is_some() {
            return Err(PackError::NMove(rules.short_name()));
        }
        Ok(Pack {
            dir: dir.to_path_buf(),
            rules: *rules,
            indexer: Indexer::for_board(rules.board()),
            files: all_subspaces(rules)
                .into_iter()
                .map(|s| (s, OnceLock::new()))
                .collect(),
            cache: BlockCache::new(blocks),
        })
    }

    /// The rule set.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Adds a file opened elsewhere (from bytes in memory, where there are
    /// no files to open); it must be made for this pack's rules.
    pub fn with_file(self, file: PackFile) -> Result<Pack, PackError> {
        let s = file.info().subspace;
        let rules = self.file_rules(s);
        if !rules.takes_tables_of(&file.info().rules) {
            return Err(PackError::Rules {
                path: file.path().to_path_buf(),
                built: file.info().rules.clone(),
                wanted: rules.canonical(),
            });
        }
        let Some(cell) = self.files.get(&s) else {
            return Err(PackError::NotCovered {
                rules: self.rules.short_name(),
                subspace: s,
            });
        };
        let _ = cell.set(file);
        Ok(self)
    }

    /// The rules a subspace's file is made for: the moving phase's files
    /// are shared the way tables are (docs/FORMAT.md).
    pub fn file_rules(&self, s: Subspace) -> Rules {
        if s.is_moving() {
            self.rules.moving_rules()
        } else {
            self.rules.family_rules()
        }
    }

    /// The file of one subspace.
    pub fn path(&self, s: Subspace) -> PathBuf {
        pack_path(&self.dir, &self.rules, s)
    }

    /// The file of subspace `s`, opened on first use. A file that fails to
    /// open is not remembered: the next probe reports the error again.
    pub fn file(&self, s: Subspace) -> Result<&PackFile, PackError> {
        let not_covered = || PackError::NotCovered {
            rules: self.rules.short_name(),
            subspace: s,
        };
        let cell = self.files.get(&s).ok_or_else(not_covered)?;
        if let Some(f) = cell.get() {
            return Ok(f);
        }
        let path = self.path(s);
        if !path.exists() {
            return Err(not_covered());
        }
        let slots = self.indexer.subspace(s.us, s.them).slots();
        let f = PackFile::open(&path, &self.file_rules(s), s, slots)?;
        let _ = cell.set(f);
        Ok(cell.get().expect("set above"))
    }

    fn locate(&self, pos: &Position) -> Lookup {
        if pos.total(pos.to_move) < 3 {
            return Lookup::Lost;
        }
        let (us, them) = (pos.stones[pos.to_move], pos.stones[!pos.to_move]);
        let s = Subspace {
            us: us.len() as u8,
            them: them.len() as u8,
            us_hand: pos.hand[pos.to_move],
            them_hand: pos.hand[!pos.to_move],
        };
        Lookup::Slot(s, self.indexer.subspace(s.us, s.them).slot(us, them))
    }

    /// Win, draw or loss of `slot` of `s`, and for a loss its depth in
    /// plies if the file carries depths.
    fn read(&self, s: Subspace, slot: u64) -> Result<(Wdl, Option<u32>), PackError> {
        let f = self.file(s)?;
        let bs = f.info().block_slots as u64;
        let (block, i) = ((slot / bs) as u32, (slot % bs) as usize);
        let field = |b: &CachedBlock| ((b.words[i / 32] >> (2 * (i % 32))) & 3) as u8;
        let wdl = self
            .cache
            .with_block((s, block), || load_block(f, block), |b| field(b))?;
        let wdl = match wdl {
            0 => Wdl::Draw,
            1 => Wdl::Win,
            2 => Wdl::Loss,
            _ => {
                return Err(PackError::Damaged(
                    f.path().to_path_buf(),
                    format!("slot {slot}: field 3 is no value"),
                ));
            }
        };
        if wdl != Wdl::Loss || f.info().depth_width == 0 {
            return Ok((wdl, None));
        }
        let half = self.cache.with_block(
            (s, block),
            || load_block(f, block),
            |b| -> Result<u16, PackError> {
                if b.depths.is_none() {
                    let mut ranks = Vec::with_capacity(b.words.len());
                    let mut n = 0u32;
                    for &w in &b.words {
                        ranks.push(n);
                        n += loss_bits(w).count_ones();
                    }
                    let depths = f.depth_block(block)?;
                    if depths.len() != n as usize || f.losses_in(block) != n as usize {
                        return Err(PackError::Damaged(
                            f.path().to_path_buf(),
                            format!("depth block {block} does not match its lost slots"),
                        ));
                    }
                    b.depths = Some((ranks, depths));
                }
                let (ranks, depths) = b.depths.as_ref().expect("set above");
                let below = loss_bits(b.words[i / 32]) & ((1u64 << (2 * (i % 32))) - 1);
                Ok(depths[ranks[i / 32] as usize + below.count_ones() as usize])
            },
        )??;
        Ok((Wdl::Loss, Some(2 * half as u32)))
    }

    /// Win, draw or loss of a position for the side to move, and the depth
    /// of a loss where the pack holds it.
    fn wdl_and_loss_depth(&self, pos: &Position) -> Result<(Wdl, Option<u32>), PackError> {
        match self.locate(pos) {
            Lookup::Lost => Ok((Wdl::Loss, Some(0))),
            Lookup::Slot(s, slot) => self.read(s, slot),
        }
    }

    /// Win, draw or loss of a position for the side to move.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, PackError> {
        Ok(self.wdl_and_loss_depth(pos)?.0)
    }

    /// Every legal move with its value for the mover, best first: wins
    /// with known plies shortest first, other wins, draws, losses (ties in
    /// move-generation order). The first is the pack player's move (see
    /// [`Pack::best_move`]).
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<PackMove>, PackError> {
        let mut moves = Vec::new();
        legal_moves(pos, &self.rules, &mut moves);
        let mut out = moves
            .into_iter()
            .map(|mv| {
                let (wdl, depth) = self.wdl_and_loss_depth(&pos.play(&mv))?;
                Ok(PackMove {
                    mv,
                    wdl: wdl.parent(),
                    plies: depth.map(|d| d + 1),
                })
            })
            .collect::<Result<Vec<_>, PackError>>()?;
        out.sort_by_key(|m| match m.wdl {
            Wdl::Win => (0, m.plies.unwrap_or(u32::MAX)),
            Wdl::Draw => (1, 0),
            Wdl::Loss => (2, 0),
        });
        Ok(out)
    }

    /// The value of a position: win, draw or loss, and the plies where the
    /// pack knows them (see [`PackValue`]).
    pub fn probe(&self, pos: &Position) -> Result<PackValue, PackError> {
        let (wdl, depth) = self.wdl_and_loss_depth(pos)?;
        let plies = match wdl {
            Wdl::Loss => depth,
            Wdl::Draw => None,
            Wdl::Win => {
                // The shortest win is exact only if every winning move's
                // depth is known.
                self.probe_moves(pos)?
                    .iter()
                    .filter(|m| m.wdl == Wdl::Win)
                    .map(|m| m.plies)
                    .collect::<Option<Vec<u32>>>()
                    .and_then(|p| p.into_iter().min())
            }
        };
        Ok(PackValue { wdl, plies })
    }

    /// The move a player with only the pack makes: from a won position the
    /// winning move whose reply ends soonest (any winning move where no
    /// depth is known, which only the placing phase without Lasker moves
    /// allows); from a drawn position a drawing move; from a lost position
    /// the first legal move. `None` when there is no legal move.
    pub fn best_move(&self, pos: &Position) -> Result<Option<PackMove>, PackError> {
        Ok(self.probe_moves(pos)?.into_iter().next())
    }
}

/// What [`verify_pack`] finds: the start's value from the pack, every
/// first move's, and the pack player's line from the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackVerification {
    /// The value of the start.
    pub start: PackValue,
    /// Every first move, best first.
    pub first_moves: Vec<PackMove>,
    /// The pack player's moves for both sides from the start, to the end of
    /// the game or `plies` plies.
    pub line: Vec<Move>,
    /// Positions on the line whose value is not the best of their moves'
    /// (none in a sound pack).
    pub inconsistent: Vec<Position>,
}

/// The value of the start from the pack, each first move's, and a line of
/// `plies` plies by the pack player for both sides, every position on it
/// checked against its moves: its value must be the best of theirs.
pub fn verify_pack(pack: &Pack, plies: usize) -> Result<PackVerification, PackError> {
    let rules = *pack.rules();
    let mut pos = Position::start(&rules);
    let start = pack.probe(&pos)?;
    let first_moves = pack.probe_moves(&pos)?;
    let (mut line, mut inconsistent) = (Vec::new(), Vec::new());
    while line.len() < plies {
        let moves = pack.probe_moves(&pos)?;
        let Some(best) = moves.first() else { break };
        if best.wdl != pack.probe_wdl(&pos)? {
            inconsistent.push(pos);
        }
        line.push(best.mv);
        pos = pos.play(&best.mv);
    }
    Ok(PackVerification {
        start,
        first_moves,
        line,
        inconsistent,
    })
}

/// The file of subspace `s` of `rules` in the pack folder `dir`.
pub fn pack_path(dir: &Path, rules: &Rules, s: Subspace) -> PathBuf {
    let folder = if s.is_moving() {
        rules.moving_rules().folder_name()
    } else {
        rules.family_rules().folder_name()
    };
    dir.join(folder).join(format!("{s}.mbp"))
}
