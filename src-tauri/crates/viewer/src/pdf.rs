//! PDF through pdfium (`pdfium-render`, which loads libpdfium at run time).
//!
//! libpdfium comes from the `pypdfium2` wheel (`.ci/setup.sh` installs it);
//! [`library_candidates`] lists where it is looked for. pdfium is bound once
//! per process; a failed bind is not remembered, so installing the library
//! and trying again works without a restart.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use pdfium_render::prelude::*;
use serde::Serialize;

/// Names the library file or the directory holding it.
pub const PDFIUM_ENV: &str = "SKALD_PDFIUM_LIB";

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error(
        "PDF viewing needs libpdfium, which was not found (looked in: {looked}). Install it with \
         `pip install --target ~/.cache/skald/pdfium pypdfium2` or set {PDFIUM_ENV} to libpdfium.so"
    )]
    LibraryMissing { looked: String },
    #[error("libpdfium at {path} could not be loaded: {message}")]
    LibraryBroken { path: PathBuf, message: String },
    #[error("not a readable PDF: {0}")]
    Document(String),
    #[error("page {page} does not exist (the document has {count} pages)")]
    NoSuchPage { page: usize, count: usize },
    #[error("rendering page {page} failed: {message}")]
    Render { page: usize, message: String },
}

fn pdfium_err(e: PdfiumError) -> PdfError {
    PdfError::Document(e.to_string())
}

/// Where libpdfium is looked for, in order: `$SKALD_PDFIUM_LIB` (a file or
/// a directory), the setup script's cache, beside the executable, the
/// packaged location.
pub fn library_candidates() -> Vec<PathBuf> {
    let name = "libpdfium.so";
    let mut out = Vec::new();
    if let Some(v) = std::env::var_os(PDFIUM_ENV).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(v);
        if p.is_dir() {
            out.push(p.join(name));
            out.push(p.join("pypdfium2_raw").join(name));
        } else {
            out.push(p);
        }
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    if let Some(cache) = cache {
        out.push(cache.join("skald/pdfium/pypdfium2_raw").join(name));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        out.push(dir.join(name));
    }
    out.push(PathBuf::from("/usr/lib/skald").join(name));
    out
}

static PDFIUM: OnceLock<Pdfium> = OnceLock::new();
static BINDING: Mutex<()> = Mutex::new(());

/// The process's pdfium, bound on first use.
pub fn pdfium() -> Result<&'static Pdfium, PdfError> {
    if let Some(p) = PDFIUM.get() {
        return Ok(p);
    }
    let _guard = BINDING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = PDFIUM.get() {
        return Ok(p);
    }
    let candidates = library_candidates();
    let Some(path) = candidates.iter().find(|p| p.is_file()) else {
        let looked = candidates
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(PdfError::LibraryMissing { looked });
    };
    let bindings = Pdfium::bind_to_library(path).map_err(|e| PdfError::LibraryBroken {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(PDFIUM.get_or_init(|| Pdfium::new(bindings)))
}

/// A page's size in PDF points (1/72 inch).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PageSize {
    pub width: f32,
    pub height: f32,
}

/// Pages of a document that contain a query, with a snippet around the
/// first hit on each.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindHit {
    /// 0-based page index.
    pub page: usize,
    pub count: usize,
    pub snippet: String,
}

/// A run of text on a page and its box, in PDF points from the page's
/// top-left corner.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TextRun {
    pub text: String,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// An open PDF. pdfium's calls are serialised by its bindings, so this is
/// cheap to keep but one document renders one page at a time.
pub struct PdfDoc {
    doc: PdfDocument<'static>,
}

impl PdfDoc {
    /// Opens from a reader — the app passes the handle the path policy
    /// judged, so the file shown is the file that was checked.
    pub fn from_reader<R: Read + Seek + Send + Sync + 'static>(
        reader: R,
    ) -> Result<Self, PdfError> {
        let doc = pdfium()?
            .load_pdf_from_reader(reader, None)
            .map_err(pdfium_err)?;
        Ok(Self { doc })
    }

    pub fn open(path: &Path) -> Result<Self, PdfError> {
        let file = std::fs::File::open(path)
            .map_err(|e| PdfError::Document(format!("{}: {e}", path.display())))?;
        Self::from_reader(file)
    }

    pub fn page_count(&self) -> usize {
        usize::try_from(self.doc.pages().len()).unwrap_or(0)
    }

    pub fn page_sizes(&self) -> Vec<PageSize> {
        self.doc
            .pages()
            .iter()
            .map(|p| PageSize {
                width: p.width().value,
                height: p.height().value,
            })
            .collect()
    }

    fn page(&self, page: usize) -> Result<PdfPage<'_>, PdfError> {
        let count = self.page_count();
        let index = i32::try_from(page)
            .ok()
            .filter(|_| page < count)
            .ok_or(PdfError::NoSuchPage { page, count })?;
        self.doc.pages().get(index).map_err(pdfium_err)
    }

    /// Renders a 0-based page to PNG, `width` pixels wide (height follows
    /// the page's aspect ratio).
    pub fn render_png(&self, page: usize, width: u32) -> Result<Vec<u8>, PdfError> {
        let fail = |message: String| PdfError::Render { page, message };
        let width = width.clamp(16, 8192);
        let config = PdfRenderConfig::new()
            .set_target_width(width as i32)
            .set_maximum_height(16384)
            .render_form_data(true);
        let image = self
            .page(page)?
            .render_with_config(&config)
            .and_then(|b| b.as_image())
            .map_err(|e| fail(e.to_string()))?;
        let mut png = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .map_err(|e| fail(e.to_string()))?;
        Ok(png)
    }

    /// The text of a 0-based page, as pdfium extracts it.
    pub fn page_text(&self, page: usize) -> Result<String, PdfError> {
        let page = self.page(page)?;
        Ok(page.text().map_err(pdfium_err)?.all())
    }

    /// The text of a 0-based page as pdfium's segments (runs of one line
    /// and style) with their boxes in points from the page's top-left: what
    /// a selectable text layer over the rendered page is made of.
    pub fn text_runs(&self, page: usize) -> Result<Vec<TextRun>, PdfError> {
        let p = self.page(page)?;
        let height = p.height().value;
        let text = p.text().map_err(pdfium_err)?;
        let runs = text
            .segments()
            .iter()
            .filter_map(|seg| {
                let b = seg.bounds();
                let t = seg.text();
                (!t.trim().is_empty()).then(|| TextRun {
                    text: t,
                    x: b.left().value,
                    y: height - b.top().value,
                    width: b.width().value,
                    height: b.height().value,
                })
            })
            .collect();
        Ok(runs)
    }

    /// Every page's text.
    pub fn text_pages(&self) -> Result<Vec<String>, PdfError> {
        (0..self.page_count()).map(|p| self.page_text(p)).collect()
    }

    /// Pages containing `query` (case-insensitive), in page order.
    pub fn find(&self, query: &str) -> Result<Vec<FindHit>, PdfError> {
        let needle = query.to_lowercase();
        if needle.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut hits = Vec::new();
        for page in 0..self.page_count() {
            let text = self.page_text(page)?;
            let lower = text.to_lowercase();
            let count = lower.matches(&needle).count();
            if count == 0 {
                continue;
            }
            let at = lower.find(&needle).unwrap_or(0);
            hits.push(FindHit {
                page,
                count,
                snippet: snippet(&lower, &text, at, needle.len()),
            });
        }
        Ok(hits)
    }
}

/// Up to 40 characters either side of a hit, on one line. `lower` and
/// `text` may differ in byte length (lowercasing changes some), so the
/// snippet is cut from `lower`'s character positions mapped onto `text`
/// only when they agree; otherwise from `lower`.
fn snippet(lower: &str, text: &str, at: usize, len: usize) -> String {
    let source = if lower.len() == text.len() {
        text
    } else {
        lower
    };
    let start = floor_char(source, at.saturating_sub(40));
    let end = floor_char(source, (at + len + 40).min(source.len()));
    source[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
