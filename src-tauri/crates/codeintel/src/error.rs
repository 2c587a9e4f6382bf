//! The crate's one error type. Outlining is best effort, so few things are
//! errors: a grammar that will not load, or a parser that gives up.

/// Why an outline could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum CodeIntelError {
    /// The compiled grammar is incompatible with the linked tree-sitter
    /// runtime (an ABI mismatch, a build problem rather than an input problem).
    #[error("the {language} grammar could not be loaded: {message}")]
    Grammar {
        /// Language name, as in [`crate::Outline::language`].
        language: &'static str,
        /// The runtime's explanation.
        message: String,
    },
    /// The parser returned no tree at all: tree-sitter yields partial trees
    /// for invalid syntax, so this means it ran out of time or failed
    /// outright. [`crate::outline_source`] answers with the text heuristic
    /// instead of this error.
    #[error("could not parse {language} source")]
    Parse {
        /// Language name, as in [`crate::Outline::language`].
        language: &'static str,
    },
}
