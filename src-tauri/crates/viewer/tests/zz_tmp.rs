#![allow(clippy::unwrap_used)]
use skald_viewer::pdf::PdfDoc;
#[test]
fn zz() {
    let pdf = PdfDoc::from_reader(std::fs::File::open("/tmp/pdfx/pages.pdf").unwrap()).unwrap();
    let png = pdf.render_png(2, 840).unwrap();
    std::fs::write("/tmp/pdfx/lib.png", &png).unwrap();
    let head: String = png[..64].iter().map(|b| format!("{b:02x}")).collect();
    eprintln!("len={} head={head}", png.len());
}
