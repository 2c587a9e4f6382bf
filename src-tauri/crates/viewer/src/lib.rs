//! The file viewer's backend, without Tauri: what kind a file is, PDF pages
//! and text through pdfium, LaTeX compiled into a build directory of its own
//! with a content-hash cache of its inputs, and file watching.
//!
//! Path policy is the caller's: the app opens files through the read tools'
//! policy and hands this crate open handles or judged paths, and LaTeX
//! compiles report every input so the caller can refuse a document that
//! read something it may not show.

pub mod html;
pub mod kind;
pub mod latex;
pub mod pdf;
pub mod watch;

pub use kind::{FileKind, detect, detect_path};
pub use latex::{
    CompileOutcome, LatexCompiler, LatexConfig, LatexError, PdfSpot, SourceSpot, SyncTexError,
    TexMessage, default_build_root,
};
pub use pdf::{FindHit, PageSize, PdfDoc, PdfError, TextRun};
pub use watch::{Change, FileWatcher, WatchError};
