//! Opening a table file, checking it, and reading its blocks.

use super::*;

/// What a table file's header says.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// The subspace.
    pub subspace: Subspace,
    /// The canonical text of the rule set it was built for.
    pub rules: String,
    /// Number of slots.
    pub slots: u64,
    /// Bytes per value code.
    pub width: u8,
    /// How the codes read.
    pub encoding: Encoding,
    /// Slots per block.
    pub block_slots: u32,
    /// Blocks per section.
    pub blocks: u32,
    /// Checksum over all block checksums.
    pub file_checksum: u64,
    /// The file's format version.
    pub version: u32,
    /// How the code section holds the codes.
    pub layout: CodeLayout,
}

/// A table file, opened: its header and block index are read into memory
/// and checked once; blocks are read from the file with positioned reads
/// (`pread`), checked against the index as it was at open, and
/// decompressed on demand.
///
/// Blocks are not read through a memory map: a mapped file that another
/// process truncates kills the reader with `SIGBUS`, and one rewritten in
/// place would be read as found. Read this way, a table is the file it was
/// when it was opened, or an error naming the file: another file's bytes
/// fail the block checksums kept from the open, and a shorter file ends a
/// read early.
pub struct TableFile {
    pub(super) path: PathBuf,
    pub(super) file: fs::File,
    pub(super) info: TableInfo,
    /// The block index as read at open: `info.blocks` win/draw/loss
    /// entries, then as many code entries, [`ENTRY`] bytes each (kept as
    /// read: decoding every entry at open would cost more than the few
    /// that a probe reads).
    pub(super) index: Box<[u8]>,
    pub(super) data_at: u64,
    /// The file's length at open.
    pub(super) len: u64,
}

/// Reads exactly `buf.len()` bytes at `offset`.
pub(super) fn read_at(file: &fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            match file.seek_read(&mut buf[done..], offset + done as u64)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
}

/// What kind of file system object `t` is, for a message refusing it.
pub(super) fn kind_of(t: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file. A FIFO is refused
/// before it is opened (opening one waits for a writer), and the opened
/// file is checked again (the name may have changed hands in between).
pub(super) fn open_regular(path: &Path) -> Result<fs::File, TableError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TableError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(TableError::Io(path.to_path_buf(), e)),
    };
    let not_a_file = |t: fs::FileType| TableError::NotAFile(path.to_path_buf(), kind_of(t));
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never wait in `open`, whatever the name has become meanwhile.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TableError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(TableError::Io(path.to_path_buf(), e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| TableError::Io(path.to_path_buf(), e))?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    Ok(file)
}

impl TableFile {
    /// Opens any table file and checks its header and block index, without
    /// asking which rules or subspace it is for.
    pub fn open_any(path: &Path) -> Result<TableFile, TableError> {
        let file = open_regular(path)?;
        let io = |e| TableError::Io(path.to_path_buf(), e);
        let corrupt = |why: Damage| TableError::Corrupt(path.to_path_buf(), why);
        let file_len = file.metadata().map_err(io)?.len();
        // The fixed fields, the rule text and its checksum first; then the
        // index, whose length the header gives.
        let mut b = vec![0u8; file_len.min(56) as usize];
        let read = |b: &mut [u8], at: u64| match read_at(&file, b, at) {
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(corrupt(Damage::HeaderCut))
            }
            r => r.map_err(io),
        };
        read(&mut b, 0)?;
        if b.len() < 12 || &b[..8] != MAGIC {
            return Err(corrupt(Damage::NotATable));
        }
        let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let version = u32_at(&b, 8);
        if version != FORMAT_VERSION && version != 2 {
            return Err(corrupt(Damage::Version(version)));
        }
        let fixed = fixed_len(version);
        if (b.len() as u64) < fixed as u64 || file_len < fixed as u64 + 8 {
            return Err(corrupt(Damage::TruncatedHeader));
        }
        let len = u32_at(&b, fixed - 4) as u64;
        if file_len < fixed as u64 + len + 8 {
            return Err(corrupt(Damage::TruncatedHeader));
        }
        let (fixed, len) = (fixed, len as usize);
        b.resize(fixed + len + 8, 0);
        read(&mut b[fixed..], fixed as u64)?;
        if xxh3_64(&b[..fixed + len]) != u64_at(&b, fixed + len) {
            return Err(corrupt(Damage::HeaderChecksum));
        }
        let layout = match (version, b[48], b[49]) {
            (2, _, _) | (_, 1, 0) => CodeLayout::Codes,
            (_, 2, w @ (1 | 2)) => CodeLayout::DecisiveHalves(w),
            (_, l, w) => {
                return Err(corrupt(Damage::Layout {
                    layout: l,
                    width: w,
                }));
            }
        };
        let info = TableInfo {
            subspace: Subspace {
                us: b[16],
                them: b[17],
                us_hand: b[18],
                them_hand: b[19],
            },
            rules: String::from_utf8_lossy(&b[fixed..fixed + len]).into_owned(),
            slots: u64_at(&b, 24),
            width: b[20],
            encoding: match (b[21], u16::from_le_bytes([b[22], b[23]])) {
                (1, 0) => Encoding::Plies,
                (2, n) if (1..=Rules::MAX_NMOVE).contains(&n) => Encoding::NMove(n),
                (3, 0) => Encoding::Signed,
                (e, p) => {
                    return Err(corrupt(Damage::Encoding {
                        code: e,
                        parameter: p,
                    }));
                }
            },
            block_slots: u32_at(&b, 32),
            blocks: u32_at(&b, 36),
            file_checksum: u64_at(&b, 40),
            version,
            layout,
        };
        if info.width != 1 && info.width != 2 {
            return Err(corrupt(Damage::Width(info.width)));
        }
        // Blocks of at most a million slots: a damaged header must not make
        // a reader allocate gigabytes for one block.
        if info.block_slots == 0
            || info.block_slots > MAX_BLOCK_SLOTS
            || info.slots.div_ceil(info.block_slots as u64) != info.blocks as u64
        {
            return Err(corrupt(Damage::BlockCount));
        }
        let index_at = (fixed + len + 8) as u64;
        let data_at = index_at + 2 * info.blocks as u64 * ENTRY as u64;
        // Checked against the file's length before the index is allocated.
        if u32_at(&b, 12) as u64 != data_at || file_len < data_at {
            return Err(corrupt(Damage::TruncatedIndex));
        }
        let mut index = vec![0u8; (data_at - index_at) as usize].into_boxed_slice();
        read(&mut index, index_at)?;
        // The header's file checksum covers the index's block checksums: a
        // damaged index is found here, not at the first probe of a block.
        if index_checksum(&index) != info.file_checksum {
            return Err(corrupt(Damage::IndexChecksum));
        }
        // The blocks run back to back to the end of the file: a shorter or
        // longer file is damaged.
        if let Some(last) = index.rchunks_exact(ENTRY).next().map(entry_of)
            && last.offset.checked_add(last.len as u64) != Some(file_len)
        {
            return Err(corrupt(Damage::Length {
                file: file_len,
                last_block_end: last.offset.saturating_add(last.len as u64),
            }));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            file,
            info,
            index,
            data_at,
            len: file_len,
        })
    }

    /// Opens the table of `subspace` for `rules` with `slots` slots,
    /// refusing a file made for anything else.
    pub fn open(
        path: &Path,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<TableFile, TableError> {
        let t = TableFile::open_any(path)?;
        let mismatch = |why: Mismatch| TableError::Mismatch(path.to_path_buf(), why);
        if !rules.takes_tables_of(&t.info.rules) {
            return Err(mismatch(Mismatch::Rules {
                built: t.info.rules.clone(),
                wanted: rules.canonical(),
            }));
        }
        let want = Encoding::of(rules, subspace.is_moving());
        if t.info.encoding != want {
            return Err(mismatch(Mismatch::Encoding {
                found: t.info.encoding,
                needed: want,
            }));
        }
        if t.info.subspace != subspace {
            return Err(mismatch(Mismatch::Subspace {
                found: t.info.subspace,
                wanted: subspace,
            }));
        }
        if t.info.slots != slots {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                Damage::SlotCount {
                    expected: slots,
                    header: t.info.slots,
                },
            ));
        }
        Ok(t)
    }

    /// What the header says.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.len
    }

    /// Compressed bytes of one section.
    pub fn section_bytes(&self, section: Section) -> u64 {
        (0..self.info.blocks)
            .map(|i| self.entry(section, i).len as u64)
            .sum()
    }

    /// Slots per block.
    pub fn block_slots(&self) -> u64 {
        self.info.block_slots as u64
    }

    pub(super) fn entry(&self, section: Section, block: u32) -> BlockEntry {
        let i = (section as usize * self.info.blocks as usize + block as usize) * ENTRY;
        entry_of(&self.index[i..i + ENTRY])
    }

    /// Reads one block's compressed bytes and checks them against the
    /// checksum the index had at open, then hands them to `f`.
    pub(super) fn with_block_bytes<R>(
        &self,
        section: Section,
        block: u32,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, TableError> {
        if block >= self.info.blocks {
            return Err(self.block_error(section, block, BlockFault::Absent));
        }
        let e = self.entry(section, block);
        let end = e.offset.saturating_add(e.len as u64);
        // A block never compresses to much more than its raw size; a
        // damaged length must not make a reader allocate the whole file.
        let most = 4 * self.info.block_slots as u64 + 4096;
        if e.offset < self.data_at || end > self.len || e.len as u64 > most {
            return Err(self.block_error(section, block, BlockFault::OutsideFile));
        }
        READ_BUFFER.with(|buf| {
            let mut buf = buf.borrow_mut();
            if buf.len() < e.len as usize {
                buf.resize(e.len as usize, 0);
            }
            let buf = &mut buf[..e.len as usize];
            match read_at(&self.file, buf, e.offset) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Err(self.block_error(section, block, BlockFault::PastEnd(self.len)));
                }
                Err(err) => return Err(TableError::Io(self.path.clone(), err)),
            }
            if xxh3_64(buf) != e.sum {
                return Err(self.block_error(section, block, BlockFault::Checksum));
            }
            Ok(f(buf))
        })
    }

    pub(super) fn block_error(
        &self,
        section: Section,
        block: u32,
        fault: BlockFault,
    ) -> TableError {
        TableError::Corrupt(
            self.path.clone(),
            Damage::Block {
                section,
                block,
                fault,
            },
        )
    }

    /// Slots in a block.
    pub(crate) fn slots_in(&self, block: u32) -> usize {
        let first = block as u64 * self.info.block_slots as u64;
        self.info
            .slots
            .saturating_sub(first)
            .min(self.info.block_slots as u64) as usize
    }

    /// Checks and decompresses one block of `section`, which must hold
    /// `want` bytes.
    pub(super) fn decompress(
        &self,
        section: Section,
        block: u32,
        want: usize,
    ) -> Result<Vec<u8>, TableError> {
        let mut out = vec![0u8; want];
        self.decompress_into(section, block, &mut out)?;
        Ok(out)
    }

    /// Checks and decompresses one block of `section` into `out`, which it
    /// must fill exactly.
    pub(super) fn decompress_into(
        &self,
        section: Section,
        block: u32,
        out: &mut [u8],
    ) -> Result<(), TableError> {
        let n = self.with_block_bytes(section, block, |bytes| {
            DECOMPRESSOR.with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = Some(zstd::bulk::Decompressor::new()?);
                }
                d.as_mut().unwrap().decompress_to_buffer(bytes, out)
            })
        })?;
        match n {
            Ok(n) if n == out.len() => Ok(()),
            Ok(_) => Err(self.block_error(section, block, BlockFault::WrongLength)),
            Err(e) => Err(self.block_error(section, block, BlockFault::Decompress(e))),
        }
    }

    /// Checks and decompresses one block of the win/draw/loss section.
    pub fn wdl_block(&self, block: u32) -> Result<WdlBlock, TableError> {
        let want = self.slots_in(block).div_ceil(4);
        // Straight into the words the block is read as.
        let mut words = vec![0u64; want.div_ceil(8)];
        // SAFETY: the bytes of a `[u64]` are a valid `[u8]` of 8 times its
        // length (any bit pattern is a u64, a byte has no alignment), and
        // `words` is not used otherwise while `bytes` lives.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8)
        };
        self.decompress_into(Section::Wdl, block, &mut bytes[..want])?;
        for w in &mut words {
            *w = u64::from_le(*w);
        }
        Ok(WdlBlock::from_words(words))
    }

    /// Checks and decompresses one block of the code section of layout 1:
    /// every slot's code.
    pub fn code_block(&self, block: u32) -> Result<Vec<u8>, TableError> {
        let want = self.slots_in(block) * self.info.width as usize;
        self.decompress(Section::Codes, block, want)
    }

    /// Checks and decompresses one block of the code section of layout 2,
    /// which holds the halved depths of `count` decisive slots (see
    /// `WdlBlock::field_code`).
    pub fn halves_block(&self, block: u32, count: usize) -> Result<Halves, TableError> {
        let CodeLayout::DecisiveHalves(width) = self.info.layout else {
            return Err(self.block_error(Section::Codes, block, BlockFault::NotHalves));
        };
        let bytes = self.decompress(Section::Codes, block, count * width as usize)?;
        Ok(Halves { bytes, width })
    }

    /// The index of `slot` in its block.
    #[inline]
    pub fn in_block(&self, slot: u64) -> usize {
        (slot % self.info.block_slots as u64) as usize
    }

    /// The code of the `i`-th slot of a block from its code block of
    /// layout 1.
    #[inline]
    pub fn code_in(&self, codes: &[u8], i: usize) -> u16 {
        code_at(codes, self.info.width, i)
    }

    /// Checks every block checksum and the file checksum (nothing is
    /// decompressed).
    pub fn verify(&self) -> Result<(), TableError> {
        let n = self.info.blocks;
        let sums = [Section::Wdl, Section::Codes]
            .into_iter()
            .flat_map(|s| (0..n).map(move |i| (s, i)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(s, i)| self.with_block_bytes(s, i, |_| self.entry(s, i).sum))
            .collect::<Result<Vec<u64>, TableError>>()?;
        if file_checksum(&sums) != self.info.file_checksum {
            return Err(TableError::Corrupt(self.path.clone(), Damage::FileChecksum));
        }
        Ok(())
    }

    /// Decompresses the whole code section into memory (every block
    /// checked).
    pub fn decode(&self) -> Result<Table, TableError> {
        let width = self.info.width as usize;
        let len = self.info.slots as usize * width;
        let mut data = crate::memory::huge_vec_par(len, || 0u8);
        // Each block decodes into its own part of the table.
        data.par_chunks_mut(self.info.block_slots as usize * width)
            .enumerate()
            .try_for_each(|(i, out)| self.decode_block_into(i as u32, out))?;
        Ok(Table::from_raw(self.info.subspace, self.info.width, data)
            .with_encoding(self.info.encoding))
    }

    /// Decompresses block `block`'s codes into `out` (its slots times the
    /// width), checked.
    fn decode_block_into(&self, block: u32, out: &mut [u8]) -> Result<(), TableError> {
        match self.info.layout {
            CodeLayout::Codes => self.decompress_into(Section::Codes, block, out),
            CodeLayout::DecisiveHalves(_) => {
                let wdl = self.wdl_block(block)?;
                let halves = self.halves_block(block, wdl.decisive)?;
                if wdl.expand(&halves, self.info.width, out) {
                    Ok(())
                } else {
                    Err(self.block_error(Section::Codes, block, BlockFault::TooDeep))
                }
            }
        }
    }

    /// Whether the file holds exactly the codes `raw` (as
    /// the table keeps them in memory), with every block and the file checksum
    /// checked: [`Self::verify`] and [`Self::decode`] in one pass, a block
    /// at a time, without the whole table in memory twice.
    pub fn holds(&self, raw: &[u8]) -> Result<bool, TableError> {
        let width = self.info.width as usize;
        let block_bytes = self.info.block_slots as usize * width;
        if raw.len() != self.info.slots as usize * width
            || raw.len().div_ceil(block_bytes.max(1)) != self.info.blocks as usize
        {
            return Ok(false);
        }
        // The block index was checked against the file checksum at open,
        // and each block is checked against its entry as it is read.
        raw.par_chunks(block_bytes)
            .enumerate()
            .map_init(Vec::new, |buf, (i, want)| {
                let i = i as u32;
                if let CodeLayout::Codes = self.info.layout {
                    // Not read by the decoding: its checksum all the same.
                    self.with_block_bytes(Section::Wdl, i, |_| ())?;
                }
                buf.resize(want.len(), 0);
                self.decode_block_into(i, buf)?;
                Ok(buf.as_slice() == want)
            })
            .try_reduce(|| true, |a, b| Ok(a && b))
    }
}
