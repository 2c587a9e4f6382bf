//! Kind detection: the extension says what a file claims to be, the first
//! bytes say what it is. Magic numbers win over the extension (a `.txt`
//! that is a PDF is shown as a PDF), and text that is not UTF-8 or holds NUL
//! bytes is binary.

use std::io::Read;
use std::path::Path;

use serde::Serialize;

/// How many leading bytes detection looks at.
pub const SNIFF_BYTES: usize = 8192;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum FileKind {
    Markdown,
    /// Source code; `language` is the highlighter's name for it.
    Code {
        language: &'static str,
    },
    Text,
    Image {
        mime: &'static str,
    },
    Svg,
    Pdf,
    Latex,
    Html,
    Binary,
}

const IMAGE_EXT: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("ico", "image/x-icon"),
];

/// Extensions of the languages `get_ast_outline` and the highlighter know,
/// plus common text formats shown as code.
const CODE_EXT: &[(&str, &str)] = &[
    ("rs", "rust"),
    ("py", "python"),
    ("pyi", "python"),
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("jsx", "javascript"),
    ("ts", "typescript"),
    ("mts", "typescript"),
    ("tsx", "typescript"),
    ("go", "go"),
    ("java", "java"),
    ("c", "c"),
    ("h", "c"),
    ("cc", "cpp"),
    ("cpp", "cpp"),
    ("cxx", "cpp"),
    ("hpp", "cpp"),
    ("cs", "csharp"),
    ("rb", "ruby"),
    ("php", "php"),
    ("sh", "bash"),
    ("bash", "bash"),
    ("zsh", "bash"),
    ("json", "json"),
    ("toml", "toml"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("css", "css"),
    ("scss", "scss"),
    ("sql", "sql"),
    ("xml", "xml"),
    ("kt", "kotlin"),
    ("swift", "swift"),
    ("lua", "lua"),
    ("bib", "bibtex"),
    ("sty", "latex"),
    ("cls", "latex"),
    ("mk", "makefile"),
    ("dockerfile", "dockerfile"),
];

const CODE_NAMES: &[(&str, &str)] = &[
    ("Makefile", "makefile"),
    ("makefile", "makefile"),
    ("GNUmakefile", "makefile"),
    ("Dockerfile", "dockerfile"),
    ("Cargo.lock", "toml"),
];

/// Detects the kind of the file at `path` from its name and first bytes.
pub fn detect_path(path: &Path) -> std::io::Result<FileKind> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    std::fs::File::open(path)?
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(detect(path, &head))
}

/// Detects a kind from the file's name and its first bytes (up to
/// [`SNIFF_BYTES`]; fewer when the file is shorter).
pub fn detect(path: &Path, head: &[u8]) -> FileKind {
    if let Some(kind) = magic(head) {
        return kind;
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if IMAGE_EXT.iter().any(|(e, _)| *e == ext) || ext == "pdf" {
        // Claims to be an image or PDF but its bytes are not: show what it is.
        return if is_text(head) {
            FileKind::Text
        } else {
            FileKind::Binary
        };
    }
    if !is_text(head) {
        return FileKind::Binary;
    }
    match ext.as_str() {
        "md" | "markdown" | "mdown" | "mkd" => return FileKind::Markdown,
        "tex" | "latex" => return FileKind::Latex,
        "html" | "htm" | "xhtml" => return FileKind::Html,
        "svg" => return FileKind::Svg,
        _ => {}
    }
    if let Some((_, language)) = CODE_EXT.iter().find(|(e, _)| *e == ext) {
        return FileKind::Code { language };
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some((_, language)) = CODE_NAMES.iter().find(|(n, _)| *n == name) {
        return FileKind::Code { language };
    }
    if let Some(language) = shebang(head) {
        return FileKind::Code { language };
    }
    if looks_like_svg(head) {
        return FileKind::Svg;
    }
    FileKind::Text
}

fn magic(head: &[u8]) -> Option<FileKind> {
    let image = |mime| Some(FileKind::Image { mime });
    if head.starts_with(b"%PDF-") {
        return Some(FileKind::Pdf);
    }
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return image("image/png");
    }
    if head.starts_with(b"\xff\xd8\xff") {
        return image("image/jpeg");
    }
    if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        return image("image/gif");
    }
    if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        return image("image/webp");
    }
    if head.starts_with(b"BM") && head.len() >= 14 && bmp_header_plausible(head) {
        return image("image/bmp");
    }
    if head.starts_with(b"\x00\x00\x01\x00") && head.len() >= 6 && head[4..6] != [0, 0] {
        return image("image/x-icon");
    }
    None
}

/// "BM" starts plenty of text files; a real BMP's pixel offset points past
/// its own headers.
fn bmp_header_plausible(head: &[u8]) -> bool {
    let offset = u32::from_le_bytes([head[10], head[11], head[12], head[13]]);
    offset >= 26 && head.contains(&0)
}

/// No NUL bytes, and UTF-8 (a multi-byte character cut at the sniff
/// boundary is fine) or, for legacy encodings, hardly any control bytes.
fn is_text(head: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) if e.error_len().is_none() && head.len() - e.valid_up_to() < 4 => true,
        Err(_) => {
            let control = head
                .iter()
                .filter(|b| matches!(b, 0x01..=0x08 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f))
                .count();
            control * 100 <= head.len()
        }
    }
}

fn shebang(head: &[u8]) -> Option<&'static str> {
    let first = head.split(|b| *b == b'\n').next()?;
    let first = std::str::from_utf8(first).ok()?;
    let rest = first.strip_prefix("#!")?;
    let interpreter = rest
        .split_whitespace()
        .find(|w| !w.ends_with("/env") && !w.starts_with('-'))?;
    let name = interpreter.rsplit('/').next().unwrap_or(interpreter);
    Some(match name {
        n if n.starts_with("python") => "python",
        "sh" | "bash" | "dash" | "zsh" | "ksh" => "bash",
        "node" | "deno" | "bun" => "javascript",
        "ruby" => "ruby",
        "perl" => "perl",
        n if n.starts_with("lua") => "lua",
        _ => return None,
    })
}

fn looks_like_svg(head: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(&head[..head.len().min(1024)]) else {
        return false;
    };
    let text = text.trim_start_matches('\u{feff}').trim_start();
    (text.starts_with("<?xml") || text.starts_with("<svg") || text.starts_with("<!DOCTYPE svg"))
        && text.contains("<svg")
}
