//! The code section's layouts: how the value codes of a block are held.

use super::*;

/// How a table's code section holds the codes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CodeLayout {
    /// Every slot's code, `width` bytes each.
    Codes,
    /// Only the slots the win/draw/loss section marks won or lost: their
    /// codes' halved depths, this many bytes each (1 or 2).
    DecisiveHalves(u8),
}

impl CodeLayout {
    pub(super) fn header_bytes(self) -> [u8; 2] {
        match self {
            CodeLayout::Codes => [1, 0],
            CodeLayout::DecisiveHalves(w) => [2, w],
        }
    }

    /// Chooses the layout for `raw` codes of `fields.width()` bytes:
    /// decisive halves unless a draw at counter 0 has a code of its own.
    pub(super) fn choose(raw: &[u8], fields: &WdlOfStored) -> CodeLayout {
        let width = fields.width();
        let n = raw.len() / width as usize;
        let widest = (0..n)
            .into_par_iter()
            .with_min_len(1 << 16)
            .map(|i| {
                let code = code_at(raw, width, i);
                match fields.at(raw, i) {
                    1 | 2 => Some((code - 1) / 2),
                    0 if code != DRAW => None,
                    _ => Some(0),
                }
            })
            .try_reduce(|| 0, |a, b| Some(a.max(b)));
        match widest {
            None => CodeLayout::Codes,
            Some(h) if h < 256 => CodeLayout::DecisiveHalves(1),
            Some(_) => CodeLayout::DecisiveHalves(2),
        }
    }

    /// The bytes of one code block in this layout.
    pub(super) fn encode(self, raw: &[u8], fields: &WdlOfStored) -> Vec<u8> {
        let width = fields.width();
        match self {
            CodeLayout::Codes => raw.to_vec(),
            CodeLayout::DecisiveHalves(hw) => {
                let mut out = Vec::new();
                for i in 0..raw.len() / width as usize {
                    if let 1 | 2 = fields.at(raw, i) {
                        let h = (code_at(raw, width, i) - 1) / 2;
                        if hw == 1 {
                            out.push(h as u8);
                        } else {
                            out.extend_from_slice(&h.to_le_bytes());
                        }
                    }
                }
                out
            }
        }
    }
}

/// What a slot's win/draw/loss field tells of its code in layout 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldCode {
    /// The code itself (a draw or an unused slot).
    Code(u16),
    /// A win or loss: its halved depth is the `rank`-th of the `count` in
    /// the block's code block.
    Decisive {
        /// Decisive slots before it in the block.
        rank: usize,
        /// Whether it is a win.
        win: bool,
        /// Decisive slots in the block.
        count: usize,
    },
}

/// A decompressed code block of layout 2: the halved depths of the
/// block's decisive slots, in slot order.
pub struct Halves {
    pub(super) bytes: Vec<u8>,
    /// Bytes per halved depth.
    pub(super) width: u8,
}

impl Halves {
    /// The code of the decisive slot with `rank` decisive slots before it
    /// in the block (see [`WdlBlock::field_code`]), a win or a loss.
    #[inline]
    pub fn code(&self, rank: usize, win: bool) -> u16 {
        let h = if self.width == 1 {
            self.bytes[rank] as u16
        } else {
            u16::from_le_bytes([self.bytes[2 * rank], self.bytes[2 * rank + 1]])
        };
        // Only a damaged (or forged) block holds a depth past the codes:
        // it reads as an unused slot, which every reader reports.
        (2 * h as u32 + 1 + win as u32).min(crate::value::UNUSED as u32) as u16
    }
}
