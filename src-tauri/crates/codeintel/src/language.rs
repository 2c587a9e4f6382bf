//! Which engine reads which file, decided by the file extension alone.

use std::path::Path;

/// A language with a real parser behind it. Anything else gets the text
/// fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.py`, `.pyi`
    Python,
    /// `.js`, `.mjs`, `.cjs`, `.jsx`
    JavaScript,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.go`
    Go,
    /// `.java`
    Java,
    /// `.c`, `.h` (a `.h` with C++-only syntax is read as C++)
    C,
    /// `.cpp`, `.cc`, `.cxx`, `.hpp`, `.hh`, `.hxx`
    Cpp,
    /// `.swift`
    Swift,
    /// `.kt`, `.kts`
    Kotlin,
    /// `.lua`
    Lua,
    /// `.rb`
    Ruby,
    /// `.sh`, `.bash`
    Bash,
    /// `.ex`, `.exs`
    Elixir,
    /// `.json`
    Json,
    /// `.yaml`, `.yml`
    Yaml,
    /// `.toml`
    Toml,
    /// `.html`, `.htm`
    Html,
    /// `.css`
    Css,
    /// `.md`, `.markdown`
    Markdown,
    /// `.sql`
    Sql,
    /// `.rs`: `syn`, falling back to tree-sitter-rust for invalid syntax.
    Rust,
}

impl Language {
    /// Every language, for tests and tooling.
    pub const ALL: [Language; 22] = [
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Java,
        Language::C,
        Language::Cpp,
        Language::Swift,
        Language::Kotlin,
        Language::Lua,
        Language::Ruby,
        Language::Bash,
        Language::Elixir,
        Language::Json,
        Language::Yaml,
        Language::Toml,
        Language::Html,
        Language::Css,
        Language::Markdown,
        Language::Sql,
        Language::Rust,
    ];

    /// The lowercase name used in [`crate::Outline::language`].
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Swift => "swift",
            Language::Kotlin => "kotlin",
            Language::Lua => "lua",
            Language::Ruby => "ruby",
            Language::Bash => "bash",
            Language::Elixir => "elixir",
            Language::Json => "json",
            Language::Yaml => "yaml",
            Language::Toml => "toml",
            Language::Html => "html",
            Language::Css => "css",
            Language::Markdown => "markdown",
            Language::Sql => "sql",
            Language::Rust => "rust",
        }
    }

    /// The language for a file extension (without the dot, any case).
    pub fn from_extension(ext: &str) -> Option<Language> {
        let lang = match ext.to_ascii_lowercase().as_str() {
            "py" | "pyi" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cpp" | "cc" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" => Language::Cpp,
            "swift" => Language::Swift,
            "kt" | "kts" => Language::Kotlin,
            "lua" => Language::Lua,
            "rb" => Language::Ruby,
            "sh" | "bash" => Language::Bash,
            "ex" | "exs" => Language::Elixir,
            "json" => Language::Json,
            "yaml" | "yml" => Language::Yaml,
            "toml" => Language::Toml,
            "html" | "htm" => Language::Html,
            "css" => Language::Css,
            "md" | "markdown" => Language::Markdown,
            "sql" => Language::Sql,
            "rs" => Language::Rust,
            _ => return None,
        };
        Some(lang)
    }
}

/// The language for a path, from its extension; `None` means the text
/// fallback will be used.
pub fn language_for(path: &Path) -> Option<Language> {
    Language::from_extension(path.extension()?.to_str()?)
}
