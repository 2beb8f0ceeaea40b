//! The win/draw/loss section: 2 bits per slot, and the blocks a probe reads.

use super::*;

/// Bits 0, 2, 4, ... of a word of 2-bit win/draw/loss fields.
pub(super) const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// One bit per field of a word of win/draw/loss fields (its low bit):
/// set for a win (1) or loss (2), clear for a draw (0) or unused slot (3).
#[inline]
pub(super) fn decisive_bits(word: u64) -> u64 {
    (word ^ (word >> 1)) & LOW_BITS
}

/// A decompressed win/draw/loss block, with what a probe of layout 2
/// needs to find a decisive slot's halved depth: the number of decisive
/// slots before each word of fields.
pub struct WdlBlock {
    /// The fields, 32 slots to a word from the low bits up.
    pub(super) words: Vec<u64>,
    /// Decisive slots in the words before each word.
    pub(super) ranks: Vec<u32>,
    /// Decisive slots in the block.
    pub(super) decisive: usize,
}

impl WdlBlock {
    /// A block from its fields, 32 slots to a word from the low bits up
    /// (the last word padded with draws).
    pub(super) fn from_words(words: Vec<u64>) -> WdlBlock {
        let mut ranks = Vec::with_capacity(words.len());
        let mut decisive = 0u32;
        for &w in &words {
            ranks.push(decisive);
            decisive += decisive_bits(w).count_ones();
        }
        WdlBlock {
            words,
            ranks,
            decisive: decisive as usize,
        }
    }

    /// The 2-bit field of the `i`-th slot of the block.
    #[inline]
    pub(super) fn field(&self, i: usize) -> u8 {
        ((self.words[i / 32] >> (2 * (i % 32))) & 3) as u8
    }

    /// Win, draw or loss of the `i`-th slot; `None` for an unused slot.
    #[inline]
    pub fn wdl(&self, i: usize) -> Option<Wdl> {
        match self.field(i) {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }

    /// The number of decisive slots in the block before the `i`-th.
    #[inline]
    pub(super) fn rank(&self, i: usize) -> usize {
        let below = decisive_bits(self.words[i / 32]) & ((1u64 << (2 * (i % 32))) - 1);
        self.ranks[i / 32] as usize + below.count_ones() as usize
    }

    /// Writes the codes of the block's slots into `out` (`width` bytes
    /// each), from its decisive slots' halved depths, in one pass; false
    /// if a code does not fit `width` (a header that does not match its
    /// blocks).
    pub(super) fn expand(&self, halves: &Halves, width: u8, out: &mut [u8]) -> bool {
        match (halves.width, width) {
            #[cfg(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2)))]
            (1, 1) => {
                self.expand_bytes(&halves.bytes, out) || self.expand_as::<1, 1>(&halves.bytes, out)
            }
            #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2))))]
            (1, 1) => self.expand_as::<1, 1>(&halves.bytes, out),
            (1, _) => self.expand_as::<1, 2>(&halves.bytes, out),
            (_, 1) => self.expand_as::<2, 1>(&halves.bytes, out),
            _ => self.expand_as::<2, 2>(&halves.bytes, out),
        }
    }

    /// [`Self::expand`] for halved depths and codes of one byte each, eight
    /// slots at a time: BMI2's `pdep` puts the next halved depths in the
    /// byte lanes of the decisive slots, and the codes are made in all
    /// eight lanes at once (a few operations a slot instead of a dozen:
    /// decoding the child tables had been a twentieth of a placing build).
    /// `false` if a depth is too deep for one byte (then
    /// [`Self::expand_as`] decides, and reports it).
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2)))]
    fn expand_bytes(&self, halves: &[u8], out: &mut [u8]) -> bool {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        // SAFETY: BMI2 is enabled for this compilation (the cfg above), so
        // the instruction exists on every processor this binary runs on.
        let pdep = |v: u64, m: u64| unsafe { core::arch::x86_64::_pdep_u64(v, m) };
        let mut rank = 0usize;
        let mut too_deep = 0u64;
        for (chunk, &word) in out.chunks_mut(32).zip(&self.words) {
            if word == 0 {
                // 32 draws: common in drawn subspaces.
                chunk.fill(0);
                continue;
            }
            for (g, lanes) in chunk.chunks_mut(8).enumerate() {
                // The group's eight 2-bit fields, one to a byte lane.
                let fields = pdep((word >> (16 * g)) & 0xffff, 0x0303_0303_0303_0303);
                let decisive = (fields ^ (fields >> 1)) & ONES;
                let win = fields & !(fields >> 1) & ONES;
                let unused = fields & (fields >> 1) & ONES;
                let mask = decisive * 0xff;
                let next = match halves.get(rank..rank + 8) {
                    Some(b) => u64::from_le_bytes(b.try_into().expect("eight bytes")),
                    None => {
                        // Past the last decisive slot a depth reads as 0.
                        let mut b = [0u8; 8];
                        let rest = halves.get(rank..).unwrap_or(&[]);
                        b[..rest.len()].copy_from_slice(rest);
                        u64::from_le_bytes(b)
                    }
                };
                let half = pdep(next, mask);
                // A code of one byte is below 255: a halved depth below 127.
                too_deep |= (((half & !HIGH) + ONES) | half) & HIGH;
                let decisive_code = ((half << 1) + ONES + win) & mask;
                let code = decisive_code | (unused * 0xff);
                let bytes = code.to_le_bytes();
                lanes.copy_from_slice(&bytes[..lanes.len()]);
                rank += decisive.count_ones() as usize;
            }
        }
        too_deep == 0
    }

    /// [`Self::expand`] for halved depths of `IN` bytes and codes of `OUT`:
    /// every slot is written by the same steps, a select in place of a
    /// branch on its field, which is as good as random (a mispredicted
    /// branch a slot had been most of the time of decoding a table).
    fn expand_as<const IN: usize, const OUT: usize>(&self, halves: &[u8], out: &mut [u8]) -> bool {
        let slots = out.len() / OUT;
        let mut rank = 0;
        let mut bad = false;
        for (chunk, &word) in out.chunks_mut(32 * OUT).zip(&self.words) {
            if word == 0 {
                // 32 draws: common in drawn subspaces.
                chunk.fill(0);
                continue;
            }
            let mut fields = word;
            for slot in chunk.chunks_exact_mut(OUT) {
                let field = (fields & 3) as u32;
                fields >>= 2;
                let decisive = (field ^ (field >> 1)) & 1;
                // Read at every slot: past the last decisive slot it is
                // not used.
                let half = match IN {
                    1 => halves.get(rank).map_or(0, |&b| b as u32),
                    _ => halves
                        .get(2 * rank..2 * rank + 2)
                        .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u32),
                };
                let win = (field == 1) as u32;
                // Only a damaged (or forged) block holds a depth past the
                // codes: it reads as an unused slot, which every reader
                // reports (as `Halves::code`).
                let depth_code = (2 * half + 1 + win).min(UNUSED as u32);
                // A draw (0) is code 0, an unused slot (3) `UNUSED`.
                let plain = (field >> 1) * UNUSED as u32;
                let code = if decisive != 0 { depth_code } else { plain };
                rank += decisive as usize;
                if OUT == 1 {
                    bad |= code >= 255 && code != UNUSED as u32;
                    slot[0] = if code == UNUSED as u32 {
                        255
                    } else {
                        code as u8
                    };
                } else {
                    slot.copy_from_slice(&(code as u16).to_le_bytes());
                }
            }
        }
        debug_assert!(slots <= 32 * self.words.len());
        !bad
    }

    /// What the field of the `i`-th slot tells of its code in layout 2.
    #[inline]
    pub fn field_code(&self, i: usize) -> FieldCode {
        match self.field(i) {
            0 => FieldCode::Code(DRAW),
            3 => FieldCode::Code(UNUSED),
            field => FieldCode::Decisive {
                rank: self.rank(i),
                win: field == 1,
                count: self.decisive,
            },
        }
    }
}

/// The 2-bit win/draw/loss field of a value code: the value at counter 0
/// (a cursed win or blessed loss of the N-move rule is a draw).
#[inline]
pub(super) fn wdl_bits(code: u16, encoding: Encoding) -> u8 {
    match encoding.value(code) {
        Some(Value::Draw) => 0,
        None => 3,
        Some(Value::Win(_)) => 1,
        Some(Value::Loss(_)) => 2,
    }
}

/// The win/draw/loss field of every value a slot of `width` bytes can hold,
/// made once per table written: the writer asks it of every slot three
/// times (layout, fields, code section), and decoding each code into a
/// value each time had been most of that work.
pub(super) struct WdlOfStored {
    fields: Vec<u8>,
    width: u8,
}

impl WdlOfStored {
    pub(super) fn new(width: u8, encoding: Encoding) -> WdlOfStored {
        let n: u32 = if width == 1 { 1 << 8 } else { 1 << 16 };
        let fields = (0..n)
            .map(|v| {
                let code = if width == 1 {
                    code_at(&[v as u8], 1, 0)
                } else {
                    v as u16
                };
                wdl_bits(code, encoding)
            })
            .collect();
        WdlOfStored { fields, width }
    }

    /// Bytes per slot.
    pub(super) fn width(&self) -> u8 {
        self.width
    }

    /// The field of slot `i` of `raw`.
    #[inline]
    pub(super) fn at(&self, raw: &[u8], i: usize) -> u8 {
        let v = if self.width == 1 {
            raw[i] as usize
        } else {
            u16::from_le_bytes([raw[2 * i], raw[2 * i + 1]]) as usize
        };
        self.fields[v]
    }
}

pub(super) fn pack_wdl(raw: &[u8], fields: &WdlOfStored) -> Vec<u8> {
    let n = raw.len() / fields.width() as usize;
    let mut out = vec![0u8; n.div_ceil(4)];
    for (j, o) in out.iter_mut().enumerate() {
        for k in 0..4.min(n - 4 * j) {
            *o |= fields.at(raw, 4 * j + k) << (2 * k);
        }
    }
    out
}
