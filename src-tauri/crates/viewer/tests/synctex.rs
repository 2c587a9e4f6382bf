//! SyncTeX on real TeX Live: a source line (in the document or a file it
//! \input-s) to its spot in the PDF, and a point on a page back to the line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Doc;
use skald_viewer::{PdfDoc, SyncTexError};

const MAIN: &str = "\\documentclass{article}\n\\begin{document}\nFirst page opening words.\n\n\\newpage\nSecond page words here.\n\n\\input{parts/later}\n\\end{document}\n";

fn doc() -> Doc {
    let doc = Doc::new();
    doc.write("main.tex", MAIN);
    doc.write(
        "parts/later.tex",
        "% a comment line\nWords from the included fragment.\n",
    );
    doc
}

#[test]
fn a_source_line_leads_to_its_page_and_the_point_leads_back() {
    let doc = doc();
    let c = doc.compiler();
    let out = c.compile(&doc.path("main.tex")).unwrap();
    assert_eq!(PdfDoc::open(&out.pdf).unwrap().page_count(), 2);

    let first = c
        .forward(&doc.path("main.tex"), &doc.path("main.tex"), 3)
        .unwrap()
        .unwrap();
    assert_eq!(first.page, 1);
    let second = c
        .forward(&doc.path("main.tex"), &doc.path("main.tex"), 6)
        .unwrap()
        .unwrap();
    assert_eq!(second.page, 2);
    assert!(second.y > 50.0 && second.y < 800.0, "{second:?}");
    // A line of an included file, on the page where it was typeset.
    let inner = c
        .forward(&doc.path("main.tex"), &doc.path("parts/later.tex"), 2)
        .unwrap()
        .unwrap();
    assert_eq!(inner.page, 2);
    assert!(
        inner.y > second.y,
        "the fragment comes after: {inner:?} vs {second:?}"
    );

    // Back from a point inside each spot.
    let back = c
        .inverse(
            &doc.path("main.tex"),
            second.page,
            second.x + 10.0,
            second.y - 2.0,
        )
        .unwrap()
        .unwrap();
    assert_eq!(back.file, doc.path("main.tex"));
    assert_eq!(back.line, 6);
    let back = c
        .inverse(
            &doc.path("main.tex"),
            inner.page,
            inner.x + 10.0,
            inner.y - 2.0,
        )
        .unwrap()
        .unwrap();
    assert_eq!(back.file, doc.path("parts/later.tex"));
    assert_eq!(back.line, 2);
}

#[test]
fn a_document_never_compiled_has_no_sync_data() {
    let doc = doc();
    let err = doc
        .compiler()
        .forward(&doc.path("main.tex"), &doc.path("main.tex"), 3)
        .unwrap_err();
    assert!(matches!(err, SyncTexError::NoData), "{err}");
}
