//! Viewer benchmarks (docs/benchmarks.md): a 300-page PDF's first page,
//! LaTeX reopen from the cache, and an edited input to a new PDF.
//! `cargo run --release -p skald-viewer --bin viewer-bench`

use std::path::Path;
use std::time::{Duration, Instant};

use skald_viewer::{LatexCompiler, LatexConfig, PdfDoc};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, path)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let doc = tmp.path().join("doc");
    std::fs::create_dir_all(&doc)?;
    let compiler = LatexCompiler::new(LatexConfig::new(tmp.path().join("build")));

    // A 300-page PDF of running text.
    let mut big = String::from("\\documentclass{article}\n\\begin{document}\n");
    for i in 1..=300 {
        big.push_str(&format!(
            "\\section*{{Page {i}}}\n{}\n\\newpage\n",
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(30)
        ));
    }
    big.push_str("\\end{document}\n");
    let big_src = doc.join("big.tex");
    write(&big_src, &big)?;
    let big_pdf = compiler.compile(&big_src)?.pdf;

    let bind = Instant::now();
    skald_viewer::pdf::pdfium()?;
    let bind = bind.elapsed();
    let mut first = Vec::new();
    let mut pages = 0;
    for _ in 0..10 {
        let t = Instant::now();
        let pdf = PdfDoc::open(&big_pdf)?;
        let sizes = pdf.page_sizes();
        let png = pdf.render_png(0, 1600)?;
        first.push(t.elapsed());
        pages = sizes.len();
        assert!(!png.is_empty());
    }
    println!(
        "300-page PDF ({pages} pages): pdfium bind {} once; open + page sizes + first page at 1600 px wide as PNG: median {}",
        ms(bind),
        ms(median(first))
    );

    // A chapter document for the cache and the edit loop.
    write(
        &doc.join("main.tex"),
        "\\documentclass{article}\n\\begin{document}\n\\input{a}\n\\input{b}\n\\end{document}\n",
    )?;
    write(&doc.join("a.tex"), "Chapter A. \\input{c}\n")?;
    write(&doc.join("b.tex"), "Chapter B.\n")?;
    write(&doc.join("c.tex"), "Fragment C, version 0.\n")?;
    let main = doc.join("main.tex");
    let cold = compiler.compile(&main)?;
    let mut reopen = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let out = compiler.compile(&main)?;
        assert!(out.from_cache);
        reopen.push(t.elapsed());
    }
    let mut edits = Vec::new();
    for i in 1..=5 {
        write(&doc.join("c.tex"), &format!("Fragment C, version {i}.\n"))?;
        let t = Instant::now();
        let out = compiler.compile(&main)?;
        assert!(!out.from_cache);
        let pdf = PdfDoc::open(&out.pdf)?;
        pdf.render_png(0, 1600)?;
        edits.push(t.elapsed());
    }
    let reopen_big: Vec<Duration> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let hit = compiler.compile(&big_src).map(|o| o.from_cache);
            assert!(matches!(hit, Ok(true)));
            t.elapsed()
        })
        .collect();
    println!(
        "LaTeX: first compile {} ms; reopen from cache median {} (300-page document: {}); edit of an \\input fragment -> compiled + first page rendered median {}",
        cold.millis,
        ms(median(reopen)),
        ms(median(reopen_big)),
        ms(median(edits))
    );
    Ok(())
}
