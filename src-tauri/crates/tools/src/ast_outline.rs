//! `get_ast_outline`: a source file's definitions with their line ranges and
//! without their bodies, from `skald_codeintel`.
//!
//! The file passes the shared read gate ([`fs::check_read_allowed`]) before a
//! byte is read, so `secrets/` stays closed through symlinks and `..`. The
//! outline engines are CPU work: the call runs on a blocking thread, never on
//! the async executor.

use std::io::Read;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skald_core_api::{
    BoxFuture, Tool, ToolCategory, ToolDescriptionLength, ToolError, ToolResult, ToolTraits,
    input_schema, parse_args,
};

use crate::ToolRegistry;
use crate::fs;
use crate::tool_names as tn;

/// Files larger than this are refused (an outline of a generated blob is
/// not useful, and parsing it would hold a thread for long).
pub const MAX_OUTLINE_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// A NUL byte in this many leading bytes marks a file as binary.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Arguments of `get_ast_outline`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OutlineInput {
    /// The source file to outline: an absolute path, or one relative to the
    /// working directory.
    path: String,
}

/// The `get_ast_outline` tool.
pub struct GetAstOutline {
    description: String,
}

impl GetAstOutline {
    pub fn new() -> Self {
        let description = format!(
            "List a source file's top-level definitions (functions, classes, structs, enums, \
             traits, impls with their methods, headings, keys, ...) without their bodies, one \
             per line as `START-END | kind name` (1-based, inclusive; members indented). The \
             ranges can be passed to {read} as start and end lines, so outline a file first \
             and read only the part you need. Parsers for Rust, Python, JavaScript, TypeScript, \
             Go, Java, C, C++, Swift, Kotlin, Lua, Ruby, shell, Elixir, JSON, YAML, TOML, \
             HTML, CSS, Markdown and SQL; other text files get a best-effort outline. Files up \
             to {} MB.",
            MAX_OUTLINE_FILE_BYTES / (1024 * 1024),
            read = tn::READ_FILE,
        );
        Self { description }
    }
}

impl Default for GetAstOutline {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers `get_ast_outline`.
pub fn register(registry: &mut ToolRegistry) {
    registry.register(GetAstOutline::new());
}

impl Tool for GetAstOutline {
    fn name(&self) -> &str {
        tn::GET_AST_OUTLINE
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters_schema(&self) -> Value {
        input_schema::<OutlineInput>()
    }

    /// ``get_ast_outline `src/main.rs` ``. Stored arguments are absolute
    /// (effective), so the path goes through the fs tools' labelling to come
    /// out relative to the session's directory, a long one keeping its end.
    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        let name = tn::GET_AST_OUTLINE;
        match fs::path_arg(args) {
            Some(p) => fs::path_label(name, "`", Some(&p), "`", length),
            None => name.to_string(),
        }
    }

    fn target_path(&self, args: &Value) -> Option<String> {
        fs::path_arg(args)
    }

    /// Makes a relative `path` absolute against the working directory.
    fn effective_args(&self, mut args: Value, workdir: &Path) -> Value {
        if let Some(p) = fs::path_arg(&args)
            && Path::new(&p).is_relative()
            && let Some(obj) = args.as_object_mut()
        {
            obj.insert(
                "path".to_string(),
                Value::String(workdir.join(p).to_string_lossy().into_owned()),
            );
        }
        args
    }

    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        let input: OutlineInput = parse_args(tn::GET_AST_OUTLINE, args.clone())?;
        validate_path(input.path.trim())
    }

    fn execute(&self, args: Value) -> ToolResult {
        let input: OutlineInput = parse_args(tn::GET_AST_OUTLINE, args)?;
        outline_file(input.path.trim())
    }

    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let input: OutlineInput = parse_args(tn::GET_AST_OUTLINE, args)?;
            tokio::task::spawn_blocking(move || outline_file(input.path.trim()))
                .await
                .map_err(|e| {
                    ToolError::failed(format!("{} did not finish: {e}", tn::GET_AST_OUTLINE))
                })?
        })
    }

    fn category(&self) -> ToolCategory {
        ToolCategory::Filesystem
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READS
    }
}

/// The argument check that needs no I/O.
fn validate_path(path: &str) -> Result<(), ToolError> {
    if path.is_empty() {
        return Err(ToolError::InvalidArguments {
            tool: tn::GET_AST_OUTLINE.to_string(),
            reason: "path is empty".to_string(),
        });
    }
    Ok(())
}

/// Gate, checks, read, outline: `<path> (<language>, N lines)` then the
/// rendered outline.
fn outline_file(path: &str) -> ToolResult {
    validate_path(path)?;
    let written = fs::resolve(path);
    // The shared policy, and the file it judged: a directory, a FIFO or a
    // path swapped meanwhile is refused, never opened by name.
    let (canonical, file, len) = fs::open_for_read(&written).map_err(|e| match e {
        ToolError::Failed(m) if m.contains("is a directory") => ToolError::failed(format!(
            "`{path}` is a directory; {} takes a file ({} shows what it holds)",
            tn::GET_AST_OUTLINE,
            tn::LIST_FILES
        )),
        ToolError::Failed(m) if m.contains("does not exist") => ToolError::failed(format!(
            "`{path}` does not exist; check the path ({} shows what is there)",
            tn::LIST_FILES
        )),
        other => other,
    })?;
    if len > MAX_OUTLINE_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "`{path}` is {:.1} MB, over the {} MB limit of {}; use {} or {} with a line range",
            len as f64 / (1024.0 * 1024.0),
            MAX_OUTLINE_FILE_BYTES / (1024 * 1024),
            tn::GET_AST_OUTLINE,
            tn::GREP_FILES,
            tn::READ_FILE,
        )));
    }
    let bytes =
        read_capped(file).map_err(|e| ToolError::failed(format!("cannot read `{path}`: {e}")))?;
    if bytes.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
        return Err(ToolError::failed(format!(
            "`{path}` is a binary file; {} outlines source text",
            tn::GET_AST_OUTLINE
        )));
    }
    let source = String::from_utf8_lossy(&bytes);
    // The language comes from the name the caller used (what they see);
    // the canonical target's when that name has no extension.
    let named = if written.extension().is_some() {
        written.as_path()
    } else {
        canonical.as_path()
    };
    let outline = skald_codeintel::outline_source(named, &source)
        .map_err(|e| ToolError::failed(format!("could not outline `{path}`: {e}")))?;
    let lines = source.lines().count();
    let unit = if lines == 1 { "line" } else { "lines" };
    Ok(format!(
        "{path} ({}, {lines} {unit})\n{}",
        outline.language,
        outline.render()
    ))
}

/// Reads at most one byte over the limit, so a file that grew after the
/// size check cannot make the read unbounded.
fn read_capped(file: std::fs::File) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(MAX_OUTLINE_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_OUTLINE_FILE_BYTES {
        return Err(std::io::Error::other(
            "the file grew past the size limit while being read",
        ));
    }
    Ok(bytes)
}
