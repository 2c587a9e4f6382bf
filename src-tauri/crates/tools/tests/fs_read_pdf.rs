//! read_file on a PDF: its text page by page, numbered and ranged like any
//! file's lines (a PDF compiled here by pdflatex, read by real libpdfium).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

mod common;

use common::*;
use serde_json::json;
use skald_tools::tool_names as tn;

fn pdf(root: &std::path::Path, pages: usize) -> std::path::PathBuf {
    let mut tex = String::from("\\documentclass{article}\n\\pagestyle{empty}\n\\begin{document}\n");
    for i in 1..=pages {
        tex.push_str(&format!("Page {i} text.\n\n\\newpage\n"));
    }
    tex.push_str("\\end{document}\n");
    let src = put(root, "doc.tex", tex);
    let status = std::process::Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-output-directory"])
        .arg(root)
        .arg(&src)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("pdflatex (TeX Live, installed by .ci/setup.sh)");
    assert!(status.success());
    // Named .txt: the content, not the name, makes it a PDF.
    let out = root.join("report.txt");
    std::fs::rename(root.join("doc.pdf"), &out).unwrap();
    out
}

#[test]
fn read_file_gives_a_pdfs_text_per_page() {
    let (_d, root) = tmp();
    let p = pdf(&root, 3);
    let out = ok(tn::READ_FILE, json!({"path": s(&p)}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "     1 | [page 1 of 3]");
    assert_eq!(lines[1], "     2 | Page 1 text.");
    assert_eq!(lines[2], "     3 | [page 2 of 3]");
    assert_eq!(lines[5], "     6 | Page 3 text.");
    assert_eq!(lines[6], "[end of the PDF's text: 3 pages, 6 lines]");
}

#[test]
fn read_file_ranges_over_a_pdfs_text() {
    let (_d, root) = tmp();
    let p = pdf(&root, 4);
    let out = ok(
        tn::READ_FILE,
        json!({"path": s(&p), "start_line": 3, "limit": 2}),
    );
    assert_eq!(
        out,
        "     3 | [page 2 of 4]\n     4 | Page 2 text.\n[PDF text, 4 pages: showing lines 3-4 of 8; continue with start_line=5]\n"
    );
    let e = err(tn::READ_FILE, json!({"path": s(&p), "start_line": 40}));
    assert!(e.contains("past the end of the text"), "{e}");
}
