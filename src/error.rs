//! Errors of user input (positions, moves, rule sets). The bottom of the
//! crate: it imports nothing, and the modules that read input convert
//! their own errors into [`ParseError`].

use std::fmt;

/// A position, move or rule text that could not be read, with the
/// offending token and what was expected, by kind.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseError {
    /// Text that does not read: a move, a point, a number, a subspace
    /// name, a position's layout.
    Syntax(String),
    /// A position that reads but breaks the rules (stones, hands, turn).
    Position(String),
    /// A rule set that does not parse or contradicts itself.
    Rules(String),
}

impl ParseError {
    /// A syntax error with the given message.
    pub fn new(msg: impl Into<String>) -> ParseError {
        ParseError::Syntax(msg.into())
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        match self {
            ParseError::Syntax(m) | ParseError::Position(m) | ParseError::Rules(m) => m,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ParseError {}
