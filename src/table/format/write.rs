//! Writing a table: blocks compressed on every core, through a temporary
//! file that is read back and checked before it takes the table's name.

use super::*;

/// `data` compressed at `level` as one zstd frame, exactly as
/// `zstd::bulk::compress` makes it.
pub(super) fn compress_block(data: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    COMPRESSORS.with(|c| {
        let mut c = c.borrow_mut();
        let i = match c.iter().position(|(l, ..)| *l == level) {
            Some(i) => i,
            None => {
                c.push((level, zstd::bulk::Compressor::new(level)?, Vec::new()));
                c.len() - 1
            }
        };
        let (_, compressor, buffer) = &mut c[i];
        buffer.clear();
        buffer.reserve(zstd::zstd_safe::compress_bound(data.len()));
        compressor.compress_to_buffer(data, buffer)?;
        Ok(buffer.to_vec())
    })
}

/// Writes `table` in format 3 through a temporary file, reads it back and
/// checks it, then renames it to `path`.
pub(in crate::table) fn write(
    table: &Table,
    path: &Path,
    rules: &Rules,
    level: i32,
) -> Result<(), TableError> {
    let io = |e| TableError::Io(path.to_path_buf(), e);
    let width = table.width();
    let raw = table.raw();
    let block_bytes = BLOCK_SLOTS as usize * width as usize;
    let chunks: Vec<&[u8]> = raw.chunks(block_bytes).collect();
    let fields = WdlOfStored::new(width, table.encoding());
    let layout = CodeLayout::choose(raw, &fields);
    let compressed = chunks
        .par_iter()
        .map(|c| {
            Ok((
                compress_block(&pack_wdl(c, &fields), level.max(WDL_LEVEL))?,
                compress_block(&layout.encode(c, &fields), level)?,
            ))
        })
        .collect::<std::io::Result<Vec<(Vec<u8>, Vec<u8>)>>>()
        .map_err(io)?;
    let n = compressed.len();
    let blocks: Vec<&[u8]> = compressed
        .iter()
        .map(|c| c.0.as_slice())
        .chain(compressed.iter().map(|c| c.1.as_slice()))
        .collect();
    let sums: Vec<u64> = blocks.par_iter().map(|b| xxh3_64(b)).collect();

    let rules_text = rules.canonical();
    let index_at = fixed_len(FORMAT_VERSION) + rules_text.len() + 8;
    let data_at = index_at + 2 * n * ENTRY;
    let s = table.subspace;
    let mut header = Vec::with_capacity(data_at);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(data_at as u32).to_le_bytes());
    let encoding = table.encoding();
    if encoding != Encoding::of(rules, table.subspace.is_moving()) {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            Mismatch::Written {
                encoding,
                rules: rules.canonical(),
            },
        ));
    }
    let [p0, p1] = encoding.parameter().to_le_bytes();
    header.extend_from_slice(&[
        s.us,
        s.them,
        s.us_hand,
        s.them_hand,
        width,
        encoding.id(),
        p0,
        p1,
    ]);
    header.extend_from_slice(&table.len().to_le_bytes());
    header.extend_from_slice(&BLOCK_SLOTS.to_le_bytes());
    header.extend_from_slice(&(n as u32).to_le_bytes());
    header.extend_from_slice(&file_checksum(&sums).to_le_bytes());
    header.extend_from_slice(&layout.header_bytes());
    header.extend_from_slice(&[0, 0]);
    header.extend_from_slice(&(rules_text.len() as u32).to_le_bytes());
    header.extend_from_slice(rules_text.as_bytes());
    header.extend_from_slice(&xxh3_64(&header).to_le_bytes());
    let mut offset = data_at as u64;
    for (b, sum) in blocks.iter().zip(&sums) {
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(b.len() as u32).to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&sum.to_le_bytes());
        offset += b.len() as u64;
    }
    debug_assert_eq!(header.len(), data_at);

    let tmp = path.with_extension("tmp");
    let written = (|| {
        let mut f = std::io::BufWriter::new(fs::File::create(&tmp).map_err(io)?);
        f.write_all(&header).map_err(io)?;
        for b in &blocks {
            f.write_all(b).map_err(io)?;
        }
        let f = f.into_inner().map_err(|e| io(e.into_error()))?;
        f.sync_all().map_err(io)?;
        drop(f);
        // Read back what reached the file before it takes the final name.
        let back = TableFile::open(&tmp, rules, table.subspace, table.len())?;
        if !back.holds(raw)? {
            return Err(TableError::Corrupt(tmp.clone(), Damage::ReadBack));
        }
        Ok(())
    })();
    if let Err(e) = written {
        // A failed write (a full disk) leaves no temporary file behind.
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path).map_err(io)?;
    if let Some(dir) = path.parent() {
        fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
    }
    Ok(())
}
