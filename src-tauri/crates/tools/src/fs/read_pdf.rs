//! `read_file` on a PDF: its text page by page (pdfium through
//! skald-viewer), numbered like any file's lines so ranges and the
//! continue hints work the same.

use std::io::Read;

use skald_core_api::{ToolError, ToolResult};

use super::access::{Target, io_failed, open_target};
use super::text::{cut_chars, numbered};

const MAX_LINE_CHARS: usize = 2000;

/// Whether the judged file starts like a PDF.
pub(crate) fn is_pdf(t: &Target) -> Result<bool, ToolError> {
    let mut head = [0u8; 5];
    let mut file = open_target(t)?;
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(io_failed(&e, "read", &t.display)),
        }
    }
    Ok(&head[..got] == b"%PDF-")
}

pub(crate) fn read_pdf(t: &Target, start: u64, limit: u64, end: Option<u64>) -> ToolResult {
    let file = open_target(t)?;
    let failed = |e: skald_viewer::PdfError| {
        ToolError::Failed(format!("cannot read the text of {}: {e}", t.display))
    };
    let doc = skald_viewer::PdfDoc::from_reader(file).map_err(failed)?;
    let pages = doc.text_pages().map_err(failed)?;
    let count = pages.len();
    let mut lines: Vec<String> = Vec::new();
    for (i, text) in pages.iter().enumerate() {
        lines.push(format!("[page {} of {count}]", i + 1));
        // pdfium ends lines with \r\n.
        lines.extend(text.lines().map(|l| l.trim_end_matches('\r').to_string()));
    }
    let total = lines.len() as u64;
    if start > total {
        return Err(ToolError::Failed(format!(
            "start_line {start} is past the end of the text of {} ({count} pages, {total} lines)",
            t.display
        )));
    }
    let last = end
        .unwrap_or(u64::MAX)
        .min(start.saturating_add(limit - 1))
        .min(total);
    let mut out = String::new();
    let mut any_cut = false;
    for n in start..=last {
        let text = &lines[(n - 1) as usize];
        let shown = cut_chars(text, MAX_LINE_CHARS, false);
        any_cut |= shown.len() != text.len();
        out.push_str(&numbered(n, &shown));
        out.push('\n');
    }
    if last < total {
        out.push_str(&format!(
            "[PDF text, {count} pages: showing lines {start}-{last} of {total}; continue with start_line={}]\n",
            last + 1
        ));
    } else {
        out.push_str(&format!(
            "[end of the PDF's text: {count} pages, {total} lines]\n"
        ));
    }
    if any_cut {
        out.push_str(&format!(
            "[lines longer than {MAX_LINE_CHARS} characters were cut]\n"
        ));
    }
    Ok(out)
}
