//! PDF through the real libpdfium on PDFs compiled here by TeX.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

mod common;

use common::{Doc, WORDS, compiled_pdf};
use skald_viewer::{PdfDoc, PdfError};

#[test]
fn page_count_sizes_text_and_find() {
    let doc = Doc::new();
    let pdf = PdfDoc::open(&compiled_pdf(&doc, 5)).unwrap();
    assert_eq!(pdf.page_count(), 5);
    let sizes = pdf.page_sizes();
    assert_eq!(sizes.len(), 5);
    // TeX Live's default paper is A4 or letter, both portrait.
    assert!(
        sizes[0].height > sizes[0].width && sizes[0].width > 500.0,
        "{sizes:?}"
    );
    for (i, text) in pdf.text_pages().unwrap().iter().enumerate() {
        assert!(
            text.contains(&format!("Page {} says {}", i + 1, WORDS[i])),
            "{text}"
        );
    }
    let hits = pdf.find("GAMMA").unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].page, 2);
    assert!(
        hits[0].snippet.contains("page 3 says gamma")
            || hits[0].snippet.contains("Page 3 says gamma")
    );
    assert!(pdf.find("says").unwrap().len() == 5);
    assert!(pdf.find("  ").unwrap().is_empty() || pdf.find("").unwrap().is_empty());
}

#[test]
fn text_runs_carry_their_text_and_where_it_sits_on_the_page() {
    let doc = Doc::new();
    let pdf = PdfDoc::open(&compiled_pdf(&doc, 3)).unwrap();
    let size = pdf.page_sizes()[1];
    let runs = pdf.text_runs(1).unwrap();
    let joined: String = runs
        .iter()
        .map(|r| r.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(joined.contains("says beta"), "{joined}");
    for r in &runs {
        // Inside the page, measured from its top-left corner, and not empty.
        assert!(r.x >= 0.0 && r.x + r.width <= size.width + 1.0, "{r:?}");
        assert!(r.y >= 0.0 && r.y + r.height <= size.height + 1.0, "{r:?}");
        assert!(r.width > 0.0 && r.height > 0.0, "{r:?}");
    }
    // The first line of text is near the top, not the bottom (y is flipped).
    let first = runs.iter().find(|r| r.text.contains("says")).unwrap();
    assert!(first.y < size.height / 2.0, "{first:?}");
    assert!(matches!(pdf.text_runs(9), Err(PdfError::NoSuchPage { .. })));
}

#[test]
fn render_a_page_to_png_at_a_width() {
    let doc = Doc::new();
    let pdf = PdfDoc::open(&compiled_pdf(&doc, 3)).unwrap();
    let png = pdf.render_png(2, 400).unwrap();
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
    assert_eq!(img.width(), 400);
    let size = pdf.page_sizes()[2];
    let expected = (400.0 * size.height / size.width).round() as u32;
    assert!(
        img.height().abs_diff(expected) <= 1,
        "{} vs {expected}",
        img.height()
    );
    let rgba = img.to_rgba8();
    let inked = rgba.pixels().filter(|p| p.0[0] < 230).count();
    assert!(
        inked > 50,
        "the page's text is drawn ({inked} inked pixels)"
    );
    // Not everything: a white page with text on it.
    assert!(inked < rgba.pixels().count() / 10);
}

#[test]
fn pages_out_of_range_and_non_pdfs_are_errors() {
    let doc = Doc::new();
    let pdf = PdfDoc::open(&compiled_pdf(&doc, 2)).unwrap();
    assert!(matches!(
        pdf.render_png(2, 100),
        Err(PdfError::NoSuchPage { page: 2, count: 2 })
    ));
    assert!(pdf.page_text(7).is_err());
    let not_pdf = doc.write("fake.pdf", "just text");
    assert!(matches!(PdfDoc::open(&not_pdf), Err(PdfError::Document(_))));
}

#[test]
fn opens_from_an_already_open_handle() {
    let doc = Doc::new();
    let path = compiled_pdf(&doc, 2);
    let file = std::fs::File::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let pdf = PdfDoc::from_reader(file).unwrap();
    assert_eq!(pdf.page_count(), 2);
}

#[test]
fn documents_render_on_many_threads_at_once() {
    let doc = Doc::new();
    let path = compiled_pdf(&doc, 4);
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let pdf = PdfDoc::from_reader(std::fs::File::open(&path).unwrap()).unwrap();
                let png = pdf.render_png(i % 4, 300).unwrap();
                assert!(!png.is_empty());
                pdf.page_text(i % 4).unwrap()
            })
        })
        .collect();
    for (i, t) in threads.into_iter().enumerate() {
        assert!(t.join().unwrap().contains(&format!("Page {}", i % 4 + 1)));
    }
}
