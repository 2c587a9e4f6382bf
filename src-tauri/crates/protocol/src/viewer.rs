//! The file viewer: what a file is, PDF pages, LaTeX compile results and
//! change notices.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What the viewer shows a file as (from its name and first bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ViewKind {
    Markdown,
    Code { language: String },
    Text,
    Image { mime: String },
    Svg,
    Pdf,
    Latex,
    Html,
    Binary,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ViewInfo {
    /// Canonical path: what later viewer commands and change events name.
    pub path: String,
    pub kind: ViewKind,
    #[ts(type = "number")]
    pub size: u64,
}

/// One definition in a code file's outline (the viewer's side list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OutlineEntry {
    pub name: String,
    /// `function`, `class`, `method`, `heading`, ...
    pub kind: String,
    /// 1-based first and last line.
    pub line: u32,
    pub end_line: u32,
    /// 0 for top-level definitions, 1 for their members, ...
    pub depth: u32,
}

/// A page's size in PDF points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct PdfPageSize {
    pub width: f32,
    pub height: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PdfInfo {
    pub pages: Vec<PdfPageSize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PdfFindHit {
    /// 0-based.
    pub page: u32,
    pub count: u32,
    pub snippet: String,
}

/// One error from a TeX log, `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TexErrorView {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub message: String,
}

/// A LaTeX compile: the PDF to show (the last good one when this compile
/// failed) and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LatexView {
    pub pdf: Option<String>,
    pub from_cache: bool,
    #[ts(type = "number")]
    pub millis: u64,
    /// The document's inputs (watched).
    pub inputs: Vec<String>,
    pub errors: Vec<TexErrorView>,
    /// A compile that could not run or finish (TeX missing, timeout).
    pub failure: Option<String>,
}

/// A run of a PDF page's text and its box, in PDF points from the page's
/// top-left corner: the selectable layer over the rendered page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PdfTextRun {
    pub text: String,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// SyncTeX forward: where a source line was typeset (PDF points from the
/// page's top-left corner; page 1-based).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PdfSpotView {
    pub page: u32,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// SyncTeX inverse: the source line behind a point in the PDF.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SourceLineView {
    pub file: String,
    pub line: u32,
}

/// Event `viewer-changed`: a watched file changed or went away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ViewerChanged {
    pub watch: u32,
    pub path: String,
    pub exists: bool,
}
