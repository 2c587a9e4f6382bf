//! SyncTeX both ways, through TeX Live's `synctex` tool over the
//! `.synctex.gz` a compile leaves beside its PDF: a source line to the spot
//! in the PDF where it was typeset (forward), and a point on a page to the
//! source line that produced it (inverse). Coordinates are PDF points from
//! the page's top-left corner, pages 1-based, as `synctex` reports them.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

/// Where a source line was typeset.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfSpot {
    /// 1-based.
    pub page: u32,
    /// Left edge and baseline of the typeset box, in PDF points from the
    /// page's top-left corner.
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// The source line behind a point on a page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSpot {
    pub file: PathBuf,
    /// 1-based.
    pub line: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum SyncTexError {
    #[error("SyncTeX needs the `synctex` program from TeX Live, which was not found")]
    Missing,
    #[error("this PDF has no SyncTeX data yet; it is written by the next compile")]
    NoData,
    #[error("synctex did not answer within {} s", .0.as_secs())]
    Timeout(Duration),
    #[error("synctex: {0}")]
    Io(String),
}

const TIMEOUT: Duration = Duration::from_secs(10);

/// The spot in `pdf` where `line` of `source` was typeset: its first
/// appearance in reading order (a line can produce several boxes, such as
/// a paragraph and a page footer).
pub fn forward(
    search_path: Option<&OsString>,
    pdf: &Path,
    source: &Path,
    line: u32,
) -> Result<Option<PdfSpot>, SyncTexError> {
    let mut input = OsString::from(format!("{line}:0:"));
    input.push(source);
    let out = run(
        search_path,
        pdf,
        &[
            OsString::from("view"),
            "-i".into(),
            input,
            "-o".into(),
            pdf.into(),
        ],
    )?;
    Ok(parse_view(&out).into_iter().min_by(|a, b| {
        (a.page, a.y)
            .partial_cmp(&(b.page, b.y))
            .unwrap_or(std::cmp::Ordering::Equal)
    }))
}

/// The source line that produced the point (`x`, `y`) on 1-based `page`.
pub fn inverse(
    search_path: Option<&OsString>,
    pdf: &Path,
    page: u32,
    x: f32,
    y: f32,
) -> Result<Option<SourceSpot>, SyncTexError> {
    let mut spec = OsString::from(format!("{page}:{x}:{y}:"));
    spec.push(pdf);
    let out = run(
        search_path,
        pdf,
        &[OsString::from("edit"), "-o".into(), spec],
    )?;
    Ok(parse_edit(&out))
}

fn run(
    search_path: Option<&OsString>,
    pdf: &Path,
    args: &[OsString],
) -> Result<String, SyncTexError> {
    if !pdf.with_extension("synctex.gz").is_file() {
        return Err(SyncTexError::NoData);
    }
    let path = search_path
        .cloned()
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    let program = std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join("synctex"))
        .find(|p| p.is_file())
        .ok_or(SyncTexError::Missing)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| SyncTexError::Io(e.to_string()))?;
    let deadline = Instant::now() + TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SyncTexError::Timeout(TIMEOUT));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(SyncTexError::Io(e.to_string())),
        }
    }
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        use std::io::Read;
        stdout
            .read_to_string(&mut out)
            .map_err(|e| SyncTexError::Io(e.to_string()))?;
    }
    Ok(out)
}

/// The records of `synctex view`: each starts at a `Page:` line.
pub fn parse_view(out: &str) -> Vec<PdfSpot> {
    let mut spots = Vec::new();
    let mut cur: Option<PdfSpot> = None;
    for line in out.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let num = || value.trim().parse::<f32>().ok();
        match key {
            "Page" => {
                spots.extend(cur.take());
                cur = value.trim().parse().ok().map(|page| PdfSpot {
                    page,
                    x: 0.0,
                    y: 0.0,
                    width: 0.0,
                    height: 0.0,
                });
            }
            "h" => cur.iter_mut().for_each(|s| s.x = num().unwrap_or(s.x)),
            "v" => cur.iter_mut().for_each(|s| s.y = num().unwrap_or(s.y)),
            "W" => cur
                .iter_mut()
                .for_each(|s| s.width = num().unwrap_or(s.width)),
            "H" => cur
                .iter_mut()
                .for_each(|s| s.height = num().unwrap_or(s.height)),
            _ => {}
        }
    }
    spots.extend(cur);
    spots
}

/// The first `Input:`/`Line:` pair of `synctex edit`, the path cleaned of
/// the `./` TeX writes into it.
pub fn parse_edit(out: &str) -> Option<SourceSpot> {
    let mut file = None;
    for line in out.lines() {
        if let Some(v) = line.strip_prefix("Input:") {
            file = Some(clean(Path::new(v.trim())));
        } else if let Some(v) = line.strip_prefix("Line:")
            && let (Some(file), Ok(line)) = (file.take(), v.trim().parse::<u32>())
            && line > 0
        {
            return Some(SourceSpot { file, line });
        }
    }
    None
}

fn clean(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_output_gives_one_spot_per_record() {
        let out = "This is SyncTeX command line utility, version 1.5\nSyncTeX result begin\nOutput:out/main.pdf\nPage:1\nx:133.7\ny:702.6\nh:133.768356\nv:702.635132\nW:343.711060\nH:6.420366\nPage:1\nx:1\ny:2\nh:133.768356\nv:99.895378\nW:343.7\nH:0.0\nSyncTeX result end\n";
        let spots = parse_view(out);
        assert_eq!(spots.len(), 2);
        assert_eq!(spots[0].page, 1);
        assert!((spots[0].y - 702.635).abs() < 0.01);
        assert!((spots[1].y - 99.895).abs() < 0.01);
        assert!((spots[0].width - 343.711).abs() < 0.01);
    }

    #[test]
    fn edit_output_gives_the_file_and_line() {
        let out = "SyncTeX result begin\nOutput:/b/good.pdf\nInput:/tmp/st/./main.tex\nLine:8\nColumn:-1\nSyncTeX result end\n";
        assert_eq!(
            parse_edit(out),
            Some(SourceSpot {
                file: PathBuf::from("/tmp/st/main.tex"),
                line: 8
            })
        );
        assert_eq!(
            parse_edit("SyncTeX result begin\nSyncTeX result end\n"),
            None
        );
    }
}
