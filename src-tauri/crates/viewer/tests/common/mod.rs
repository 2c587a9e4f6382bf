//! Shared test helpers: documents on disk, a compiler with its build root
//! outside the document's directory, a small PNG.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use skald_viewer::{LatexCompiler, LatexConfig};

pub struct Doc {
    pub tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub build: PathBuf,
}

impl Doc {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("doc").canonicalize().unwrap_or_else(|_| {
            std::fs::create_dir_all(tmp.path().join("doc")).unwrap();
            tmp.path().join("doc").canonicalize().unwrap()
        });
        let build = tmp.path().join("build");
        Self { tmp, dir, build }
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        // Rename over, as editors and write_file do.
        let tmp = p.with_extension("tmp~");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        p
    }

    pub fn config(&self) -> LatexConfig {
        LatexConfig::new(&self.build)
    }

    pub fn compiler(&self) -> LatexCompiler {
        LatexCompiler::new(self.config())
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// A solid-colour PNG, so a changed colour is a changed input.
pub fn write_png(path: &Path, rgb: [u8; 3]) {
    let img = image::RgbImage::from_pixel(8, 8, image::Rgb(rgb));
    img.save_with_format(path, image::ImageFormat::Png).unwrap();
}

/// A PDF of `pages` pages, page n saying "Page n" and a word of its own.
pub const WORDS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];

pub fn pages_tex(pages: usize) -> String {
    let mut s = String::from("\\documentclass{article}\n\\pagestyle{empty}\n\\begin{document}\n");
    for i in 0..pages {
        s.push_str(&format!(
            "Page {} says {}.\n\\newpage\n",
            i + 1,
            WORDS[i % WORDS.len()]
        ));
    }
    s.push_str("\\end{document}\n");
    s
}

pub fn compiled_pdf(doc: &Doc, pages: usize) -> PathBuf {
    let src = doc.write("pages.tex", &pages_tex(pages));
    doc.compiler().compile(&src).unwrap().pdf
}
