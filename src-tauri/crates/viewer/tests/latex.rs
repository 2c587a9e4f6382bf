//! LaTeX on real TeX Live: inputs from the .fls, the content-hash cache,
//! recompiles on changed fragments and images, errors from real logs,
//! the timeout and a missing TeX.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

mod common;

use std::time::{Duration, Instant};

use common::{Doc, write_png};
use skald_viewer::{LatexCompiler, LatexError, PdfDoc};

const CHAIN: &str = "\\documentclass{article}\n\\usepackage{graphicx}\n\\begin{document}\nMain text.\n\\input{chapter}\n\\includegraphics{img.png}\n\\end{document}\n";

fn chain_doc() -> Doc {
    let doc = Doc::new();
    doc.write("main.tex", CHAIN);
    doc.write("chapter.tex", "Chapter says \\input{parts/inner}\n");
    doc.write("parts/inner.tex", "inner version one.\n");
    write_png(&doc.path("img.png"), [200, 30, 30]);
    doc
}

fn pdf_text(path: &std::path::Path) -> String {
    PdfDoc::open(path).unwrap().text_pages().unwrap().join("\n")
}

#[test]
fn inputs_come_from_the_recorder_file_and_the_build_stays_outside_the_tree() {
    let doc = chain_doc();
    let out = doc.compiler().compile(&doc.path("main.tex")).unwrap();
    assert!(!out.from_cache);
    assert_eq!(out.inputs[0], doc.path("main.tex"));
    for name in ["chapter.tex", "parts/inner.tex", "img.png"] {
        assert!(
            out.inputs.contains(&doc.path(name)),
            "{name} missing from {:?}",
            out.inputs
        );
    }
    assert!(
        out.inputs.iter().all(|p| !p.starts_with("/usr")),
        "TeX's own files are not the document's inputs: {:?}",
        out.inputs
    );
    assert!(out.pdf.starts_with(&doc.build));
    assert!(std::fs::read(&out.pdf).unwrap().starts_with(b"%PDF-"));
    let mut left: Vec<_> = std::fs::read_dir(&doc.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["chapter.tex", "img.png", "main.tex", "parts"]);
    assert!(pdf_text(&out.pdf).contains("inner version one"));
}

#[test]
fn unchanged_reopen_is_a_cache_hit_even_after_a_rewrite_with_the_same_bytes() {
    let doc = chain_doc();
    let compiler = doc.compiler();
    let first = compiler.compile(&doc.path("main.tex")).unwrap();
    let again = compiler.compile(&doc.path("main.tex")).unwrap();
    assert!(again.from_cache);
    assert_eq!(again.pdf, first.pdf);
    assert_eq!(again.inputs, first.inputs);
    // New mtime, same content: the hash decides.
    std::thread::sleep(Duration::from_millis(20));
    doc.write("parts/inner.tex", "inner version one.\n");
    assert!(compiler.compile(&doc.path("main.tex")).unwrap().from_cache);
    // A new compiler (a restarted app) finds the same cache on disk.
    let restarted = LatexCompiler::new(doc.config());
    assert!(restarted.compile(&doc.path("main.tex")).unwrap().from_cache);
}

#[test]
fn a_changed_input_fragment_recompiles() {
    let doc = chain_doc();
    let compiler = doc.compiler();
    compiler.compile(&doc.path("main.tex")).unwrap();
    doc.write("parts/inner.tex", "inner version two.\n");
    let out = compiler.compile(&doc.path("main.tex")).unwrap();
    assert!(!out.from_cache);
    let text = pdf_text(&out.pdf);
    assert!(text.contains("inner version two"), "{text}");
    assert!(compiler.compile(&doc.path("main.tex")).unwrap().from_cache);
}

#[test]
fn a_changed_image_recompiles() {
    let doc = chain_doc();
    let compiler = doc.compiler();
    let first = compiler.compile(&doc.path("main.tex")).unwrap();
    let before = std::fs::read(&first.pdf).unwrap();
    write_png(&doc.path("img.png"), [30, 30, 200]);
    let out = compiler.compile(&doc.path("main.tex")).unwrap();
    assert!(!out.from_cache);
    assert_ne!(std::fs::read(&out.pdf).unwrap(), before);
}

#[test]
fn a_new_input_joins_the_watched_set() {
    let doc = chain_doc();
    let compiler = doc.compiler();
    compiler.compile(&doc.path("main.tex")).unwrap();
    doc.write("parts/inner.tex", "inner \\input{parts/extra}\n");
    doc.write("parts/extra.tex", "extra words.\n");
    let out = compiler.compile(&doc.path("main.tex")).unwrap();
    assert!(out.inputs.contains(&doc.path("parts/extra.tex")));
    doc.write("parts/extra.tex", "extra changed.\n");
    let out = compiler.compile(&doc.path("main.tex")).unwrap();
    assert!(!out.from_cache);
    assert!(pdf_text(&out.pdf).contains("extra changed"));
}

fn failed(result: Result<skald_viewer::CompileOutcome, LatexError>) -> LatexError {
    match result {
        Ok(o) => panic!("expected a failed compile, got {o:?}"),
        Err(e) => e,
    }
}

#[test]
fn undefined_control_sequences_are_reported_at_their_file_and_line() {
    let doc = Doc::new();
    doc.write(
        "main.tex",
        "\\documentclass{article}\n\\begin{document}\nHello \\badmacro world.\n\\input{part}\n\\end{document}\n",
    );
    doc.write("part.tex", "Part text \\alsobad.\n");
    let err = failed(doc.compiler().compile(&doc.path("main.tex")));
    let LatexError::Failed { errors, inputs, .. } = &err else {
        panic!("{err:?}")
    };
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        shown[..2],
        [
            format!(
                "{}:3: Undefined control sequence \\badmacro",
                doc.path("main.tex").display()
            ),
            format!(
                "{}:1: Undefined control sequence \\alsobad",
                doc.path("part.tex").display()
            ),
        ],
        "{shown:?}"
    );
    assert!(inputs.contains(&doc.path("part.tex")));
}

#[test]
fn a_missing_file_is_reported_and_watched_for_and_the_last_good_pdf_kept() {
    let doc = Doc::new();
    let main = doc.write(
        "main.tex",
        "\\documentclass{article}\n\\begin{document}\nGood.\n\\end{document}\n",
    );
    let compiler = doc.compiler();
    let good = compiler.compile(&main).unwrap();
    let good_bytes = std::fs::read(&good.pdf).unwrap();
    doc.write(
        "main.tex",
        "\\documentclass{article}\n\\begin{document}\nA\n\\input{nothere}\n\\end{document}\n",
    );
    let err = failed(compiler.compile(&main));
    let LatexError::Failed {
        errors,
        inputs,
        last_good,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        errors[0].to_string(),
        format!(
            "{}:4: LaTeX Error: File `nothere.tex' not found",
            main.display()
        ),
        "{errors:?}"
    );
    assert!(inputs.contains(&doc.path("nothere.tex")), "{inputs:?}");
    let kept = last_good.as_ref().unwrap();
    assert_eq!(std::fs::read(kept).unwrap(), good_bytes);
    // Creating it fixes the document.
    doc.write("nothere.tex", "now here.\n");
    let out = compiler.compile(&main).unwrap();
    assert!(pdf_text(&out.pdf).contains("now here"));
}

#[test]
fn a_runaway_argument_is_reported_with_its_location() {
    let doc = Doc::new();
    let main = doc.write(
        "main.tex",
        "\\documentclass{article}\n\\begin{document}\n\\textbf{unclosed\n\nmore}\n\\end{document}\n",
    );
    let err = failed(doc.compiler().compile(&main));
    let LatexError::Failed { errors, .. } = &err else {
        panic!("{err:?}")
    };
    let first = &errors[0];
    assert_eq!(first.file.as_deref(), Some(main.as_path()), "{errors:?}");
    assert_eq!(first.line, Some(5));
    assert!(
        first
            .message
            .starts_with("Runaway argument: Paragraph ended before"),
        "{errors:?}"
    );
    // A file that ends inside the argument names the file.
    let main2 = doc.write(
        "eof.tex",
        "\\documentclass{article}\n\\begin{document}\n\\textbf{unclosed\n",
    );
    let err = failed(doc.compiler().compile(&main2));
    let LatexError::Failed { errors, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        errors.iter().any(|e| e.message
            == "Runaway argument: File ended while scanning use of \\textbf"
            && e.file.as_deref() == Some(main2.as_path())),
        "{errors:?}"
    );
}

#[test]
fn a_compile_that_never_ends_is_stopped_at_the_timeout() {
    let doc = Doc::new();
    let main = doc.write(
        "loop.tex",
        "\\documentclass{article}\n\\begin{document}\n\\def\\x{\\x}\\x\n\\end{document}\n",
    );
    let mut config = doc.config();
    config.timeout = Duration::from_secs(2);
    let started = Instant::now();
    let err = failed(LatexCompiler::new(config).compile(&main));
    assert!(matches!(err, LatexError::Timeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(err.to_string().contains("longer than 2 s"));
    assert_eq!(err.inputs()[0], main);
}

#[test]
fn tex_missing_is_a_clear_error() {
    let doc = Doc::new();
    let main = doc.write("main.tex", "\\documentclass{article}\n");
    let empty = doc.tmp.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let mut config = doc.config();
    config.search_path = Some(empty.into_os_string());
    let err = failed(LatexCompiler::new(config).compile(&main));
    assert!(matches!(err, LatexError::TexMissing));
    assert!(err.to_string().contains("LaTeX is not installed"));
}

#[test]
fn pdflatex_alone_compiles_when_latexmk_is_absent() {
    let doc = chain_doc();
    let mut config = doc.config();
    config.pdflatex_only = true;
    let out = LatexCompiler::new(config)
        .compile(&doc.path("main.tex"))
        .unwrap();
    assert!(out.inputs.contains(&doc.path("parts/inner.tex")));
    assert!(pdf_text(&out.pdf).contains("inner version one"));
}
