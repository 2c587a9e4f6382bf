//! Errors distilled from a TeX log as `file:line: message`.
//!
//! The compile runs with `-file-line-error` and `max_print_line` raised, so
//! an error is one line `./chapter.tex:12: Undefined control sequence.`
//! followed by the context `l.12 \badmacro`. Errors TeX reports without a
//! location (`! Emergency stop.`, a runaway argument's first line) are kept
//! with `file: None` when nothing located precedes them.

use std::path::{Path, PathBuf};

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TexMessage {
    /// Absolute when TeX named it relative to the document's directory.
    pub file: Option<PathBuf>,
    pub line: Option<u32>,
    pub message: String,
}

impl std::fmt::Display for TexMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{}:{line}: {}", file.display(), self.message),
            (Some(file), None) => write!(f, "{}: {}", file.display(), self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// At most this many errors are kept: after the first few, TeX's errors are
/// mostly echoes of the first.
const MAX_ERRORS: usize = 20;

/// Errors in a log written with `-file-line-error`; relative file names are
/// joined to `base` (the directory TeX ran in).
pub fn distill(log: &str, base: &Path) -> Vec<TexMessage> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out: Vec<TexMessage> = Vec::new();
    let mut runaway = false;
    for (i, line) in lines.iter().enumerate() {
        if out.len() >= MAX_ERRORS {
            break;
        }
        let prefix = |m: String| {
            if runaway {
                format!("Runaway argument: {m}")
            } else {
                m
            }
        };
        if let Some((file, lineno, message)) = located(line) {
            let mut message = message.trim().trim_end_matches('.').trim().to_string();
            if is_aftermath(&message) && !out.is_empty() {
                continue;
            }
            if message.starts_with("Undefined control sequence") {
                // The message names no macro; the context's last token is
                // the one TeX stopped at.
                if let Some(token) =
                    context_after(&lines[i + 1..]).and_then(|c| c.split_whitespace().last())
                {
                    message = format!("Undefined control sequence {token}");
                }
            }
            push_unique(
                &mut out,
                TexMessage {
                    file: Some(resolve(base, file)),
                    line: Some(lineno),
                    message: prefix(message),
                },
            );
            runaway = false;
        } else if *line == "Runaway argument?" {
            runaway = true;
        } else if let Some(rest) = line.strip_prefix("! ") {
            let rest = rest.trim().trim_end_matches('.').trim();
            if is_aftermath(rest) && !out.is_empty() {
                continue;
            }
            // LaTeX's own errors (`! LaTeX Error: File … not found`) are not
            // located even with -file-line-error; the `l.N` context gives the
            // line and the located line TeX prints next (Emergency stop)
            // the file; a file that ended inside an argument names itself in
            // the `<*>` context.
            let after = &lines[i + 1..lines.len().min(i + 12)];
            let next_located = after.iter().find_map(|l| located(l));
            let file = next_located.map(|(f, _, _)| resolve(base, f)).or_else(|| {
                after
                    .iter()
                    .find_map(|l| l.strip_prefix("<*> "))
                    .map(|name| resolve(base, name.trim()))
            });
            let line = context_line(after).or(next_located.map(|(_, n, _)| n));
            push_unique(
                &mut out,
                TexMessage {
                    file,
                    line,
                    message: prefix(rest.to_string()),
                },
            );
            runaway = false;
        } else if line.starts_with("!pdfTeX error") {
            push_unique(&mut out, unlocated(line.trim_start_matches('!').trim()));
        }
    }
    out
}

/// What TeX prints after the real error when it gives up.
fn is_aftermath(message: &str) -> bool {
    message.starts_with("Emergency stop") || message.trim_start().starts_with("==>")
}

fn context_line(rest: &[&str]) -> Option<u32> {
    rest.iter().take(8).find_map(|l| {
        let (n, _) = l.strip_prefix("l.")?.split_once(' ')?;
        n.parse().ok()
    })
}

fn resolve(base: &Path, file: &str) -> PathBuf {
    if Path::new(file).is_absolute() {
        PathBuf::from(file)
    } else {
        base.join(file.strip_prefix("./").unwrap_or(file))
    }
}

fn unlocated(message: &str) -> TexMessage {
    TexMessage {
        file: None,
        line: None,
        message: message.to_string(),
    }
}

fn push_unique(out: &mut Vec<TexMessage>, m: TexMessage) {
    if !out.contains(&m) {
        out.push(m);
    }
}

/// `path:line: message` where path looks like a file TeX opened (it has an
/// extension or a directory part), so prose with colons is not mistaken.
fn located(line: &str) -> Option<(&str, u32, &str)> {
    let mut parts = line.splitn(3, ':');
    let file = parts.next()?;
    let lineno = parts.next()?;
    let message = parts.next()?;
    if file.is_empty() || file.contains(' ') && !file.contains('/') {
        return None;
    }
    if !(file.contains('/') || file.contains('.')) {
        return None;
    }
    let lineno: u32 = lineno.parse().ok()?;
    message.strip_prefix(' ').map(|m| (file, lineno, m))
}

/// The `l.<n> …` context line TeX prints after an error, if close by.
fn context_after<'a>(rest: &[&'a str]) -> Option<&'a str> {
    rest.iter().take(8).find_map(|l| {
        let body = l.strip_prefix("l.")?;
        let (n, text) = body.split_once(' ')?;
        n.parse::<u32>().ok().map(|_| text)
    })
}
