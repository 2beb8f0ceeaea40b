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
        let mut rank = 0;
        for (j, slot) in out.chunks_exact_mut(width as usize).enumerate() {
            let code = match self.field(j) {
                0 => DRAW,
                3 => UNUSED,
                field => {
                    let code = halves.code(rank, field == 1);
                    rank += 1;
                    code
                }
            };
            if width == 1 {
                if code >= 255 && code != UNUSED {
                    return false;
                }
                slot[0] = if code == UNUSED { 255 } else { code as u8 };
            } else {
                slot.copy_from_slice(&code.to_le_bytes());
            }
        }
        true
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

pub(super) fn pack_wdl(raw: &[u8], width: u8, encoding: Encoding) -> Vec<u8> {
    let n = raw.len() / width as usize;
    let mut out = vec![0u8; n.div_ceil(4)];
    for i in 0..n {
        out[i / 4] |= wdl_bits(code_at(raw, width, i), encoding) << (2 * (i % 4));
    }
    out
}
