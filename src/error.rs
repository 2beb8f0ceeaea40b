//! Errors of user input (positions, moves, rule sets). The bottom of the
//! crate: it imports nothing, and the modules that read input convert
//! their own errors into [`ParseError`].

use std::fmt;

/// A position, move or rule text that could not be read, with the
/// offending token and what was expected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError(pub String);

impl ParseError {
    /// An error with the given message.
    pub fn new(msg: impl Into<String>) -> ParseError {
        ParseError(msg.into())
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}
