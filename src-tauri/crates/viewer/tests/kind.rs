//! Kind detection by extension and content.

use std::path::Path;

use skald_viewer::{FileKind, detect};

fn kind(name: &str, head: &[u8]) -> FileKind {
    detect(Path::new(name), head)
}

#[test]
fn by_extension() {
    assert_eq!(kind("README.md", b"# Hi"), FileKind::Markdown);
    assert_eq!(
        kind("paper.tex", b"\\documentclass{article}"),
        FileKind::Latex
    );
    assert_eq!(kind("paper.LaTeX", b"x"), FileKind::Latex);
    assert_eq!(kind("index.html", b"<!doctype html>"), FileKind::Html);
    assert_eq!(kind("page.HTM", b"<p>"), FileKind::Html);
    assert_eq!(
        kind("logo.svg", b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
        FileKind::Svg
    );
    assert_eq!(
        kind("main.rs", b"fn main() {}"),
        FileKind::Code { language: "rust" }
    );
    assert_eq!(
        kind("app.tsx", b"export {}"),
        FileKind::Code {
            language: "typescript"
        }
    );
    assert_eq!(
        kind("Makefile", b"all:\n"),
        FileKind::Code {
            language: "makefile"
        }
    );
    assert_eq!(kind("notes.txt", b"plain words"), FileKind::Text);
    assert_eq!(kind("no-extension", b"plain words"), FileKind::Text);
    assert_eq!(kind("empty.txt", b""), FileKind::Text);
}

#[test]
fn by_content() {
    assert_eq!(
        kind("a.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
        FileKind::Image { mime: "image/png" }
    );
    assert_eq!(
        kind("photo", b"\xff\xd8\xff\xe0\0\x10JFIF"),
        FileKind::Image { mime: "image/jpeg" }
    );
    assert_eq!(
        kind("x.gif", b"GIF89a\x01\0"),
        FileKind::Image { mime: "image/gif" }
    );
    assert_eq!(
        kind("x.webp", b"RIFF\x24\0\0\0WEBPVP8 "),
        FileKind::Image { mime: "image/webp" }
    );
    let mut bmp = b"BM\x46\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0".to_vec();
    bmp.resize(64, 0);
    assert_eq!(kind("x.bmp", &bmp), FileKind::Image { mime: "image/bmp" });
    assert_eq!(
        kind("favicon.ico", b"\0\0\x01\0\x01\0\x10\x10"),
        FileKind::Image {
            mime: "image/x-icon"
        }
    );
    // Magic wins over the name: a PDF called .txt is a PDF.
    assert_eq!(kind("report.txt", b"%PDF-1.5\n%\xe2\xe3"), FileKind::Pdf);
    assert_eq!(kind("report.pdf", b"%PDF-1.7"), FileKind::Pdf);
    // A name that lies about binary content.
    assert_eq!(kind("fake.png", b"just text"), FileKind::Text);
    assert_eq!(kind("fake.pdf", b"\x01\x02\0\x03"), FileKind::Binary);
    // "BM" at the start of text is not a bitmap.
    assert_eq!(
        kind("notes", b"BMW owners club, minutes of the meeting"),
        FileKind::Text
    );
}

#[test]
fn binary_and_text_edges() {
    assert_eq!(
        kind("data.bin", b"\x7fELF\x02\x01\x01\0\0\0"),
        FileKind::Binary
    );
    assert_eq!(kind("main.rs", b"fn main() {}\0"), FileKind::Binary);
    assert_eq!(kind("latin1.txt", b"caf\xe9 au lait"), FileKind::Text);
    assert_eq!(
        kind("blob", b"\x01\x02\x03\xff\xfe\x10\x11"),
        FileKind::Binary
    );
    // A multi-byte character cut by the sniff window is still text.
    let mut cut = "é".repeat(10).into_bytes();
    cut.push(0xc3);
    assert_eq!(kind("cut.txt", &cut), FileKind::Text);
    assert_eq!(
        kind("run", b"#!/usr/bin/env python3\nprint(1)"),
        FileKind::Code { language: "python" }
    );
    assert_eq!(
        kind("run", b"#!/bin/sh -e\necho"),
        FileKind::Code { language: "bash" }
    );
    assert_eq!(
        kind("drawing", b"<?xml version=\"1.0\"?>\n<svg width='1'/>"),
        FileKind::Svg
    );
    assert_eq!(
        kind("feed", b"<?xml version=\"1.0\"?>\n<rss/>"),
        FileKind::Text
    );
}

#[test]
fn kinds_serialise_for_the_ui() {
    assert_eq!(
        serde_json::to_string(&FileKind::Code { language: "rust" }).unwrap(),
        r#"{"kind":"code","language":"rust"}"#
    );
    assert_eq!(
        serde_json::to_string(&FileKind::Pdf).unwrap(),
        r#"{"kind":"pdf"}"#
    );
}
