//! LaTeX to PDF: `latexmk` (or `pdflatex` when latexmk is missing) in a
//! build directory outside the source tree, `-recorder` for the inputs, and
//! a content-hash cache so reopening an unchanged document runs no TeX.
//!
//! What a compile may do is narrowed: `-norc` (no `latexmkrc` from the
//! document's directory, which latexmk would run as Perl) and
//! `-no-shell-escape` (no `\write18`, not even TeX Live's restricted list).
//! Every input is reported, so the caller can refuse a document that read
//! a file its policy hides.

mod cache;
pub mod fls;
pub mod log;
pub mod synctex;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

pub use log::TexMessage;
pub use synctex::{PdfSpot, SourceSpot, SyncTexError};

#[derive(Debug, Clone)]
pub struct LatexConfig {
    /// Parent of every document's build directory (one per source path).
    pub build_root: PathBuf,
    /// A compile running longer is killed (its whole process group).
    pub timeout: Duration,
    /// Where latexmk and pdflatex are looked for; `None`: `$PATH`.
    pub search_path: Option<OsString>,
    /// Use pdflatex even when latexmk is there.
    pub pdflatex_only: bool,
}

impl LatexConfig {
    pub fn new(build_root: impl Into<PathBuf>) -> Self {
        Self {
            build_root: build_root.into(),
            timeout: Duration::from_secs(60),
            search_path: None,
            pdflatex_only: false,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileOutcome {
    /// The PDF (a copy in the build directory that only good compiles write).
    pub pdf: PathBuf,
    /// The document's own inputs, the source first: what to watch.
    pub inputs: Vec<PathBuf>,
    /// No TeX ran: every input hashed as it did after the last compile.
    pub from_cache: bool,
    pub millis: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum LatexError {
    #[error(
        "LaTeX is not installed: neither latexmk nor pdflatex was found. Install TeX Live \
         (Debian: apt install latexmk texlive-latex-base texlive-latex-recommended)"
    )]
    TexMissing,
    #[error("the LaTeX compile took longer than {} s and was stopped", .timeout.as_secs())]
    Timeout {
        timeout: Duration,
        inputs: Vec<PathBuf>,
        last_good: Option<PathBuf>,
    },
    #[error("LaTeX failed: {}", summary(.errors))]
    Failed {
        errors: Vec<TexMessage>,
        inputs: Vec<PathBuf>,
        last_good: Option<PathBuf>,
    },
    #[error("{0}")]
    Io(String),
}

fn summary(errors: &[TexMessage]) -> String {
    match errors {
        [] => "no error in the log".into(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
    }
}

impl LatexError {
    /// Files to watch even though the compile failed: fixing any of them
    /// (or creating a missing one) should retry.
    pub fn inputs(&self) -> &[PathBuf] {
        match self {
            Self::Timeout { inputs, .. } | Self::Failed { inputs, .. } => inputs,
            _ => &[],
        }
    }

    /// The PDF of the last good compile, shown under the error banner.
    pub fn last_good(&self) -> Option<&Path> {
        match self {
            Self::Timeout { last_good, .. } | Self::Failed { last_good, .. } => {
                last_good.as_deref()
            }
            _ => None,
        }
    }
}

fn io(context: &str, e: impl std::fmt::Display) -> LatexError {
    LatexError::Io(format!("{context}: {e}"))
}

/// Compiles documents; one compile at a time per document (a second caller
/// waits and then usually hits the cache).
pub struct LatexCompiler {
    config: LatexConfig,
    locks: Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>,
}

enum Program {
    Latexmk(PathBuf),
    Pdflatex(PathBuf),
}

impl LatexCompiler {
    pub fn new(config: LatexConfig) -> Self {
        Self {
            config,
            locks: Mutex::new(HashMap::new()),
        }
    }

    pub fn config(&self) -> &LatexConfig {
        &self.config
    }

    /// The build directory of `source` (an absolute, canonical path).
    pub fn build_dir(&self, source: &Path) -> PathBuf {
        self.config.build_root.join(cache::path_key(source))
    }

    /// The PDF for `source`, from the cache when no input changed.
    pub fn compile(&self, source: &Path) -> Result<CompileOutcome, LatexError> {
        let started = Instant::now();
        let source = source
            .canonicalize()
            .map_err(|e| io(&source.display().to_string(), e))?;
        let build = self.build_dir(&source);
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
            locks.entry(build.clone()).or_default().clone()
        };
        let _held = lock.lock().unwrap_or_else(|e| e.into_inner());
        let good = build.join("good.pdf");
        if let Some(inputs) = cache::hit(&build, &source, &good) {
            return Ok(CompileOutcome {
                pdf: good,
                inputs,
                from_cache: true,
                millis: started.elapsed().as_millis() as u64,
            });
        }
        let program = self.program().ok_or(LatexError::TexMissing)?;
        let out = build.join("out");
        std::fs::create_dir_all(&out).map_err(|e| io("creating the build directory", e))?;
        let dir = source
            .parent()
            .ok_or_else(|| LatexError::Io("the source has no directory".into()))?;
        let stem = source
            .file_stem()
            .ok_or_else(|| LatexError::Io("the source has no name".into()))?
            .to_string_lossy()
            .into_owned();
        let last_good = good.is_file().then(|| good.clone());
        let wall_start = std::time::SystemTime::now();
        let status = self.run(&program, &source, dir, &out, &build);
        let fls = std::fs::read_to_string(out.join(format!("{stem}.fls"))).unwrap_or_default();
        let found = fls::parse(&fls, &build);
        let mut project = found.project.clone();
        if !project.contains(&source) {
            project.insert(0, source.clone());
        }
        let finished = match status {
            Err(RunError::Timeout) => {
                return Err(LatexError::Timeout {
                    timeout: self.config.timeout,
                    inputs: project,
                    last_good,
                });
            }
            Err(RunError::Spawn(e)) => return Err(io("starting TeX", e)),
            Ok(ok) => ok,
        };
        // TeX logs are in the input's encoding, not always UTF-8.
        let log = std::fs::read(out.join(format!("{stem}.log"))).unwrap_or_default();
        let log = String::from_utf8_lossy(&log);
        let pdf = out.join(format!("{stem}.pdf"));
        if !finished || !pdf.is_file() {
            let mut errors = log::distill(&log, dir);
            if errors.is_empty() {
                errors.push(TexMessage {
                    file: None,
                    line: None,
                    message: tail_of(&build.join("tex.out")),
                });
            }
            for missing in missing_files(&errors, dir) {
                if !project.contains(&missing) {
                    project.push(missing);
                }
            }
            return Err(LatexError::Failed {
                errors,
                inputs: project,
                last_good,
            });
        }
        let tmp = build.join("good.pdf.tmp");
        std::fs::copy(&pdf, &tmp).map_err(|e| io("keeping the PDF", e))?;
        std::fs::rename(&tmp, &good).map_err(|e| io("keeping the PDF", e))?;
        // SyncTeX data travels with the PDF it describes (`synctex` finds it
        // by the PDF's name); without it only source<->PDF jumps are lost.
        let sync = out.join(format!("{stem}.synctex.gz"));
        let kept = good.with_extension("synctex.gz");
        let tmp = build.join("good.synctex.gz.tmp");
        if let Err(e) = std::fs::copy(&sync, &tmp).and_then(|_| std::fs::rename(&tmp, &kept)) {
            tracing::warn!("no SyncTeX data kept for {}: {e}", source.display());
            let _ = std::fs::remove_file(&kept);
        }
        let inputs = Inputs {
            project: project.clone(),
            system: found.system,
        };
        if let Err(e) = cache::store(&build, &source, &inputs, wall_start) {
            tracing::warn!("latex cache not written for {}: {e}", source.display());
        }
        Ok(CompileOutcome {
            pdf: good,
            inputs: project,
            from_cache: false,
            millis: started.elapsed().as_millis() as u64,
        })
    }

    /// Where `line` of `input` (the document or a file it includes) was
    /// typeset in `document`'s last good PDF.
    pub fn forward(
        &self,
        document: &Path,
        input: &Path,
        line: u32,
    ) -> Result<Option<PdfSpot>, SyncTexError> {
        let pdf = self.good_pdf(document)?;
        synctex::forward(self.config.search_path.as_ref(), &pdf, input, line)
    }

    /// The source line behind a point on a page of `document`'s last good PDF.
    pub fn inverse(
        &self,
        document: &Path,
        page: u32,
        x: f32,
        y: f32,
    ) -> Result<Option<SourceSpot>, SyncTexError> {
        let pdf = self.good_pdf(document)?;
        synctex::inverse(self.config.search_path.as_ref(), &pdf, page, x, y)
    }

    fn good_pdf(&self, document: &Path) -> Result<PathBuf, SyncTexError> {
        let source = document
            .canonicalize()
            .map_err(|e| SyncTexError::Io(format!("{}: {e}", document.display())))?;
        let pdf = self.build_dir(&source).join("good.pdf");
        if pdf.is_file() {
            Ok(pdf)
        } else {
            Err(SyncTexError::NoData)
        }
    }

    fn program(&self) -> Option<Program> {
        let path = self
            .config
            .search_path
            .clone()
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        // latexmk runs pdflatex by name; without it there is no compile.
        let pdflatex = find_program("pdflatex", &path)?;
        if !self.config.pdflatex_only
            && let Some(p) = find_program("latexmk", &path)
        {
            return Some(Program::Latexmk(p));
        }
        Some(Program::Pdflatex(pdflatex))
    }

    /// Runs TeX; `Ok(true)` when it exited 0.
    fn run(
        &self,
        program: &Program,
        source: &Path,
        dir: &Path,
        out: &Path,
        build: &Path,
    ) -> Result<bool, RunError> {
        let name = source.file_name().unwrap_or_default();
        let mut outdir = OsString::from("-output-directory=");
        outdir.push(out);
        let tex_flags = [
            "-recorder",
            "-synctex=1",
            "-interaction=nonstopmode",
            "-file-line-error",
            "-no-shell-escape",
        ];
        let passes: Vec<Command> = match program {
            Program::Latexmk(latexmk) => {
                let mut c = Command::new(latexmk);
                let mut od = OsString::from("-outdir=");
                od.push(out);
                // -g: our content-hash cache already said an input changed;
                // latexmk's own check reads mtimes in whole seconds and a
                // same-size edit within the second looks unchanged to it.
                c.args(["-norc", "-pdf", "-silent", "-g"])
                    .args(tex_flags)
                    .arg(od)
                    .arg(name);
                vec![c]
            }
            Program::Pdflatex(pdflatex) => (0..3)
                .map(|_| {
                    let mut c = Command::new(pdflatex);
                    c.args(tex_flags).arg(&outdir).arg(name);
                    c
                })
                .collect(),
        };
        let deadline = Instant::now() + self.config.timeout;
        let log_path = out.join(format!(
            "{}.log",
            source.file_stem().unwrap_or_default().to_string_lossy()
        ));
        let mut ok = false;
        for (i, mut cmd) in passes.into_iter().enumerate() {
            let sink = std::fs::File::create(build.join("tex.out")).map_err(RunError::Spawn)?;
            let sink2 = sink.try_clone().map_err(RunError::Spawn)?;
            cmd.current_dir(dir)
                .env("max_print_line", "10000")
                .env("error_line", "254")
                .env("half_error_line", "238")
                .stdin(Stdio::null())
                .stdout(sink)
                .stderr(sink2);
            if let Some(p) = &self.config.search_path {
                cmd.env("PATH", p);
            }
            ok = run_with_deadline(cmd, deadline)?;
            let reran = i + 1 < 3 && matches!(program, Program::Pdflatex(_)) && ok && {
                let log = std::fs::read(&log_path).unwrap_or_default();
                let log = String::from_utf8_lossy(&log);
                log.contains("Rerun to get") || log.contains("Label(s) may have changed")
            };
            if !ok || !reran {
                break;
            }
        }
        Ok(ok)
    }
}

use fls::Inputs;

enum RunError {
    Timeout,
    Spawn(std::io::Error),
}

fn run_with_deadline(mut cmd: Command, deadline: Instant) -> Result<bool, RunError> {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status.success()),
            Ok(None) => {}
            Err(e) => return Err(RunError::Spawn(e)),
        }
        if Instant::now() >= deadline {
            // latexmk's pdflatex is in the same group: take them all.
            if let Ok(pid) = i32::try_from(child.id()) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = child.kill();
            let _ = child.wait();
            return Err(RunError::Timeout);
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

fn find_program(name: &str, path: &OsString) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// Files TeX said it could not find, so creating one retries the compile.
fn missing_files(errors: &[TexMessage], dir: &Path) -> Vec<PathBuf> {
    errors
        .iter()
        .filter_map(|e| {
            let rest = e.message.split_once("File `")?.1;
            let name = rest.split_once('\'')?.0;
            let p = dir.join(name);
            (!fls::is_system(&p)).then_some(p)
        })
        .collect()
}

fn tail_of(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
    if tail.is_empty() {
        "TeX stopped without a log".into()
    } else {
        tail
    }
}

/// `$XDG_CACHE_HOME/skald/latex` (or `~/.cache/skald/latex`): build output
/// is disposable and must never land beside the sources.
pub fn default_build_root() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("skald").join("latex")
}
