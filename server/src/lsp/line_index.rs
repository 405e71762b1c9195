//! Offsets ↔ LSP positions (UTF-16 code units by default, UTF-8 bytes when
//! the client negotiates it).
//!
//! [`LineIndex::new`] converts offsets of a text; [`LineIndex::of`]
//! converts offsets of a file's semantic tree (the macro-expanded text,
//! see `slang_analysis::expansion`) to and from positions in what the
//! user wrote.

use std::sync::Arc;

use slang_analysis::{SourceFile, TextRange, TextSize};
use slang_syntax::Expansion;
use tower_lsp_server::lsp_types::{Position, Range};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
}

/// Line starts of a text.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    encoding: Encoding,
    /// Offsets are those of this expansion of `text`.
    expansion: Option<Arc<Expansion>>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str, encoding: Encoding) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts, encoding, expansion: None }
    }

    /// For the offsets of `file`'s semantic tree.
    pub fn of(db: &'a dyn slang_analysis::Db, file: SourceFile, encoding: Encoding) -> Self {
        let mut li = LineIndex::new(file.text(db), encoding);
        li.expansion = slang_analysis::expansion::expansion(db, file).clone();
        li
    }

    /// Whether `r` (a semantic-tree range) stands for text the user wrote
    /// as it is: not inside a macro's expansion, or a token copied from a
    /// macro's argument. Edits are made only there.
    pub fn is_exact(&self, r: TextRange) -> bool {
        match &self.expansion {
            Some(e) => e.use_at_expanded(r).is_none_or(|u| e.to_source(self.text, r) != u.source),
            None => true,
        }
    }

    fn to_source(&self, r: TextRange) -> TextRange {
        match &self.expansion {
            Some(e) => e.to_source(self.text, r),
            None => r,
        }
    }

    /// The byte offset of a position; positions past the end of a line or
    /// of the text are clamped (clients send such positions).
    pub fn offset(&self, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else { return self.text.len() };
        let end = self.starts.get(pos.line as usize + 1).map_or(self.text.len(), |&e| e);
        let line = &self.text[start..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += match self.encoding {
                Encoding::Utf16 => c.len_utf16() as u32,
                Encoding::Utf8 => c.len_utf8() as u32,
            };
        }
        start + line.len()
    }

    pub fn text_size(&self, pos: Position) -> TextSize {
        let offset = TextSize::from(self.offset(pos) as u32);
        match &self.expansion {
            Some(e) => e.to_expanded(self.text, offset),
            None => offset,
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let offset = match &self.expansion {
            Some(_) => self.to_source(TextRange::empty(TextSize::from(offset as u32))).start().into(),
            None => offset,
        };
        self.source_position(offset)
    }

    fn source_position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let mut o = offset;
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        let prefix = &self.text[start..o];
        let character = match self.encoding {
            Encoding::Utf16 => prefix.encode_utf16().count() as u32,
            Encoding::Utf8 => prefix.len() as u32,
        };
        Position { line: line as u32, character }
    }

    /// An LSP range as a text range (an end before the start is taken as
    /// the start).
    pub fn text_range(&self, r: Range) -> TextRange {
        let start = self.text_size(r.start);
        TextRange::new(start, self.text_size(r.end).max(start))
    }

    pub fn range(&self, r: TextRange) -> Range {
        let r = self.to_source(r);
        Range { start: self.source_position(r.start().into()), end: self.source_position(r.end().into()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_round_trip() {
        let text = "a😀b\nxé\r\nlast";
        let li = LineIndex::new(text, Encoding::Utf16);
        // `b` is after a surrogate pair: column 3 in UTF-16.
        let b = text.find('b').unwrap();
        assert_eq!(li.position(b), Position { line: 0, character: 3 });
        assert_eq!(li.offset(Position { line: 0, character: 3 }), b);
        // Past the end of a line: its end (before `\r\n`).
        assert_eq!(li.offset(Position { line: 1, character: 99 }), text.find('\r').unwrap());
        // Past the last line: the end of the text.
        assert_eq!(li.offset(Position { line: 9, character: 0 }), text.len());
        let li8 = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(li8.position(b), Position { line: 0, character: 5 });
    }
}
