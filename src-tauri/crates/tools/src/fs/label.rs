//! Display labels and effective arguments shared by the fs tools: paths
//! shortened (relative to the session's working directory — see
//! [`with_display_base`] — else the process's; long ones cut from the left
//! so the file name survives) within the Short/Full limits.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skald_core_api::{ToolDescriptionLength, truncate_label};

use super::policy::relativize_for_display;

thread_local! {
    static DISPLAY_BASE: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
}

/// Runs `f` with labels made relative to `base` (a session's working
/// directory) instead of the process's current directory. `Tool::describe`
/// takes no directory, and stored arguments are absolute (effective), so the
/// caller that knows the session sets it around the call.
pub fn with_display_base<R>(base: Option<&Path>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<PathBuf>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            DISPLAY_BASE.with(|b| *b.borrow_mut() = prev);
        }
    }
    let prev = DISPLAY_BASE.with(|b| b.replace(base.map(Path::to_path_buf)));
    let _restore = Restore(prev);
    f()
}

/// `raw` for a label: relative to the display base (or the current
/// directory) when under it.
fn label_path(raw: &str) -> String {
    let p = Path::new(raw);
    if !p.is_absolute() {
        return raw.to_string();
    }
    let base = DISPLAY_BASE
        .with(|b| b.borrow().clone())
        .or_else(|| std::env::current_dir().ok());
    match base {
        Some(base) => relativize_for_display(p, &base),
        None => raw.to_string(),
    }
}

/// Keeps the last `max` characters, marking the cut with a leading `…`.
fn tail_fit(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max == 0 {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

/// `{name} {before}{path}{after}` within the length's limit, shortening the
/// path from the left first.
pub fn path_label(
    name: &str,
    before: &str,
    path: Option<&str>,
    after: &str,
    length: ToolDescriptionLength,
) -> String {
    let max = length.max_chars();
    let Some(path) = path.map(str::trim).filter(|p| !p.is_empty()) else {
        return truncate_label(format!("{name} {before}{after}").trim_end(), max);
    };
    let fixed = name.chars().count() + 1 + before.chars().count() + after.chars().count();
    let budget = max.saturating_sub(fixed).max(12);
    let shown = tail_fit(&label_path(path), budget);
    truncate_label(&format!("{name} {before}{shown}{after}"), max)
}

/// `"text"` cut to `max` characters inside the quotes.
pub(crate) fn quoted(text: &str, max: usize) -> String {
    format!("\"{}\"", truncate_label(text, max))
}

pub(crate) fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

pub(crate) fn u64_arg(args: &Value, key: &str) -> Option<u64> {
    args.get(key).and_then(Value::as_u64)
}

/// Makes `args.path` absolute against `workdir`. With `default_dot`, a
/// missing path (meaning ".") becomes `workdir` itself, so a directory tool
/// re-run after a crash searches the same place.
pub fn absolutize_path(mut args: Value, workdir: &Path, default_dot: bool) -> Value {
    // No arguments at all mean the same as `{}` (the tool reads `null` so
    // too): the working directory must be applied to both alike.
    if args.is_null() {
        args = Value::Object(Default::default());
    }
    let Some(obj) = args.as_object_mut() else {
        return args;
    };
    match obj.get("path") {
        Some(Value::String(p)) if !Path::new(p).is_absolute() => {
            // `./src` → `<workdir>/src`, `.` → `<workdir>`.
            let joined: std::path::PathBuf = workdir
                .join(p)
                .components()
                .filter(|c| !matches!(c, std::path::Component::CurDir))
                .collect();
            let abs = joined.to_string_lossy().into_owned();
            obj.insert("path".to_string(), Value::String(abs));
        }
        None if default_dot => {
            let abs = workdir.to_string_lossy().into_owned();
            obj.insert("path".to_string(), Value::String(abs));
        }
        _ => {}
    }
    args
}
