//! Outlines of realistic fixtures (one per language, snapshotted), plus the
//! odd inputs an agent will feed the tool: empty files, broken syntax,
//! unknown extensions, non-ASCII names.

// Shared helpers panic on setup failures, like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use skald_codeintel::{
    EMPTY_OUTLINE, Language, NO_OUTLINE_FOR_TYPE, Outline, OutlineItem, language_for,
    outline_source,
};

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn outline_fixture(name: &str) -> Outline {
    let path = fixture_path(name);
    let source = std::fs::read_to_string(&path).unwrap();
    outline_source(&path, &source).unwrap()
}

fn outline(path: &str, source: &str) -> Outline {
    outline_source(Path::new(path), source).unwrap()
}

/// Snapshot of the rendered outline of `tests/fixtures/<file>`, which must
/// be read by the engine for `language`.
macro_rules! fixture_snapshot {
    ($test:ident, $file:literal, $language:literal) => {
        #[test]
        fn $test() {
            let outline = outline_fixture($file);
            assert_eq!(outline.language, $language);
            assert!(!outline.is_empty(), "{} has no items", $file);
            insta::assert_snapshot!(stringify!($test), outline.render());
        }
    };
}

fixture_snapshot!(python, "sample.py", "python");
fixture_snapshot!(javascript, "sample.js", "javascript");
fixture_snapshot!(typescript, "sample.ts", "typescript");
fixture_snapshot!(tsx, "sample.tsx", "tsx");
fixture_snapshot!(go, "sample.go", "go");
fixture_snapshot!(java, "sample.java", "java");
fixture_snapshot!(c, "sample.c", "c");
fixture_snapshot!(c_header, "sample.h", "c");
fixture_snapshot!(cpp, "sample.cpp", "cpp");
fixture_snapshot!(swift, "sample.swift", "swift");
fixture_snapshot!(kotlin, "sample.kt", "kotlin");
fixture_snapshot!(lua, "sample.lua", "lua");
fixture_snapshot!(ruby, "sample.rb", "ruby");
fixture_snapshot!(bash, "sample.sh", "bash");
fixture_snapshot!(elixir, "sample.ex", "elixir");
fixture_snapshot!(json, "sample.json", "json");
fixture_snapshot!(yaml, "sample.yaml", "yaml");
fixture_snapshot!(toml, "sample.toml", "toml");
fixture_snapshot!(html, "sample.html", "html");
fixture_snapshot!(css, "sample.css", "css");
fixture_snapshot!(markdown, "sample.md", "markdown");
fixture_snapshot!(sql, "sample.sql", "sql");
fixture_snapshot!(rust, "sample.rs", "rust");
fixture_snapshot!(text_fallback, "sample.pl", "text");

/// Extensions that share an engine with a fixture give the same outline.
#[test]
fn extension_aliases_share_engines() {
    let cases = [
        ("sample.js", ["x.mjs", "x.cjs", "x.jsx"].as_slice()),
        ("sample.cpp", &["x.cc", "x.hpp", "x.cxx", "x.hh"]),
        ("sample.yaml", &["x.yml", "X.YAML"]),
        ("sample.ex", &["x.exs"]),
        ("sample.sh", &["x.bash"]),
        ("sample.py", &["x.pyi"]),
        ("sample.md", &["x.markdown"]),
        ("sample.kt", &["x.kts"]),
        ("sample.ts", &["x.mts"]),
    ];
    for (fixture, aliases) in cases {
        let expected = outline_fixture(fixture);
        let source = std::fs::read_to_string(fixture_path(fixture)).unwrap();
        for alias in aliases {
            assert_eq!(outline(alias, &source), expected, "{alias} vs {fixture}");
        }
    }
}

#[test]
fn language_for_extensions() {
    assert_eq!(language_for(Path::new("a/b.py")), Some(Language::Python));
    assert_eq!(language_for(Path::new("b.RS")), Some(Language::Rust));
    assert_eq!(language_for(Path::new("b.tsx")), Some(Language::Tsx));
    assert_eq!(language_for(Path::new("b.h")), Some(Language::C));
    assert_eq!(language_for(Path::new("b.pl")), None);
    assert_eq!(language_for(Path::new("Makefile")), None);
    assert_eq!(language_for(Path::new(".py")), None);
    for lang in Language::ALL {
        assert!(!lang.name().is_empty());
    }
}

/// A C++ header with a `.h` extension is read as C++ when C cannot read it.
#[test]
fn cpp_header_with_h_extension() {
    let source = "namespace app {\nclass Widget {\npublic:\n  void draw();\n};\n}\n";
    let outline = outline("widget.h", source);
    assert_eq!(outline.language, "cpp");
    insta::assert_snapshot!(outline.render(), @r"
    1-6 | namespace app
      2-5 | class Widget
        4-4 | method draw
    ");
}

fn every_extension() -> Vec<&'static str> {
    vec![
        "py", "js", "mjs", "ts", "tsx", "go", "java", "c", "h", "cpp", "cc", "hpp", "swift", "kt",
        "lua", "rb", "sh", "ex", "exs", "json", "yaml", "yml", "toml", "html", "css", "md", "sql",
        "rs", "txt", "pl",
    ]
}

#[test]
fn empty_files_give_empty_outlines() {
    for ext in every_extension() {
        for source in ["", "\n", "   \n\n\t\n"] {
            let outline = outline(&format!("empty.{ext}"), source);
            assert!(outline.is_empty(), "{ext}: {outline:?}");
            let expected = if outline.language == "text" {
                NO_OUTLINE_FOR_TYPE
            } else {
                EMPTY_OUTLINE
            };
            assert_eq!(outline.render(), expected, "{ext}");
        }
    }
}

/// Garbage in, no panic out, for every engine.
#[test]
fn odd_input_never_panics() {
    let deep_brackets = "(".repeat(50_000);
    let deep_braces = format!("fn f() {{ {} }}", "{".repeat(5_000));
    let inputs = [
        "\0\0\0\u{1}\u{2}binary\u{fffd}",
        "}}}}))))]]]]",
        "def class fn struct impl trait {",
        deep_brackets.as_str(),
        deep_braces.as_str(),
        "\u{feff}#!/bin/sh\r\nf() { :; }\r\n",
        "x".repeat(100_000).leak(),
    ];
    for ext in every_extension() {
        for source in inputs {
            let _ = outline(&format!("odd.{ext}"), source).render();
        }
    }
}

#[test]
fn python_syntax_error_keeps_surrounding_definitions() {
    let source = "\
def ok():
    return 1

def broken(:
    pass

class Later:
    def method(self):
        return 2
";
    let outline = outline("broken.py", source);
    let names: Vec<&str> = outline.items.iter().map(|i| i.name.as_str()).collect();
    assert!(names.contains(&"ok"), "{}", outline.render());
    assert!(names.contains(&"Later"), "{}", outline.render());
}

/// `syn` rejects this file; tree-sitter-rust still outlines it.
#[test]
fn rust_syntax_error_falls_back_to_tree_sitter() {
    let source = "\
pub struct Config {
    name: String,
}

impl Config {
    pub fn new() -> Self {
        let x = ;
        Self { name: String::new() }
    }
}

fn after() {}
";
    let outline = outline("broken.rs", source);
    assert_eq!(outline.language, "rust");
    insta::assert_snapshot!(outline.render(), @r"
    1-3 | struct Config
    5-10 | impl Config
      6-9 | method new
    12-12 | function after
    ");
}

#[test]
fn json_syntax_error_still_lists_keys() {
    let source = "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": \n  },\n  \"d\": [1, 2\n}\n";
    let outline = outline("broken.json", source);
    assert!(
        outline.items.iter().any(|i| i.name == "a"),
        "{}",
        outline.render()
    );
}

fn find<'a>(items: &'a [OutlineItem], name: &str) -> &'a OutlineItem {
    items
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no item {name} in {items:?}"))
}

#[test]
fn methods_nest_inside_their_types() {
    let py = outline_fixture("sample.py");
    let item = find(&py.items, "Item");
    assert_eq!(item.kind, "class");
    assert_eq!(find(&item.children, "total").kind, "method");
    // A class nested in a class, and no nested functions.
    assert_eq!(find(&item.children, "Meta").kind, "class");
    assert!(find(&py.items, "load").children.is_empty());

    let rs = outline_fixture("sample.rs");
    let backend = find(&rs.items, "Backend for Store");
    assert_eq!(backend.kind, "impl");
    assert_eq!(find(&backend.children, "get").kind, "method");
    let tr = find(&rs.items, "Backend");
    assert_eq!(tr.children.len(), 2);

    let java = outline_fixture("sample.java");
    let status = find(&find(&java.items, "Cart").children, "Status");
    assert_eq!(find(&status.children, "isOpen").kind, "method");

    let rendered = outline_fixture("sample.cpp").render();
    assert!(
        rendered.contains("\n    8-8 | method ~Shape\n"),
        "{rendered}"
    );
}

#[test]
fn rendered_ranges_are_valid_line_numbers() {
    fn check(items: &[OutlineItem], lines: usize, parent: Option<&OutlineItem>, file: &str) {
        for item in items {
            assert!(item.start_line >= 1, "{file}: {item:?}");
            assert!(item.start_line <= item.end_line, "{file}: {item:?}");
            assert!(item.end_line <= lines, "{file}: {item:?} past line {lines}");
            if let Some(p) = parent {
                assert!(
                    p.start_line <= item.start_line && item.end_line <= p.end_line,
                    "{file}: {item:?} outside {p:?}"
                );
            }
            check(&item.children, lines, Some(item), file);
        }
    }
    for path in fixture_files() {
        let source = std::fs::read_to_string(&path).unwrap();
        let outline = outline_source(&path, &source).unwrap();
        check(
            &outline.items,
            source.lines().count(),
            None,
            &path.display().to_string(),
        );
    }
}

#[test]
fn unknown_extension_uses_text_heuristic_or_says_so() {
    let ruby_like = outline(
        "tool.rake",
        "namespace :db do\n  task :migrate do\n  end\nend\n",
    );
    assert_eq!(ruby_like.language, "text");

    let prose = "The class of problems we solve.\nA function is a mapping.\n";
    let notes = outline("notes.txt", prose);
    assert!(notes.is_empty());
    assert_eq!(notes.render(), NO_OUTLINE_FOR_TYPE);

    let pascal = outline(
        "unit.pas",
        "procedure Hello;\nbegin\nend;\n\nfunction Add(a, b: Integer): Integer;\n",
    );
    insta::assert_snapshot!(pascal.render(), @r"
    1-3 | function Hello
    5-5 | function Add
    ");
}

#[test]
fn non_ascii_identifiers() {
    let py = outline(
        "unicode.py",
        "# Ünïcödé 🎉 comment\nclass Café:\n    def größe(self): ...\n\ndef 関数():\n    pass\n",
    );
    insta::assert_snapshot!(py.render(), @r"
    1-3 | class Café
      3-3 | method größe
    5-6 | function 関数
    ");

    let rs = outline(
        "unicode.rs",
        "/// Überblick 🎉\nfn naïve() {}\n\nstruct Ñandú;\n\nimpl Ñandú {\n    fn größe(&self) {}\n}\n",
    );
    insta::assert_snapshot!(rs.render(), @r"
    1-2 | function naïve
    4-4 | struct Ñandú
    6-8 | impl Ñandú
      7-7 | method größe
    ");

    let js = outline(
        "unicode.js",
        "const π = 3.14;\nfunction données(ç) {\n  return ç;\n}\n",
    );
    insta::assert_snapshot!(js.render(), @r"
    1-1 | const π
    2-4 | function données
    ");

    let md = outline("unicode.md", "# Überschrift\n\n## 章节\ntext\n");
    insta::assert_snapshot!(md.render(), @r"
    1-4 | heading Überschrift
      3-4 | heading 章节
    ");
}

/// Parsers are cached per thread; outlines must not leak state between
/// files, threads or languages (nor line numbers between Rust files, whose
/// spans live in a thread-local source map).
#[test]
fn repeated_and_concurrent_outlines_agree() {
    let names = [
        "sample.rs",
        "sample.py",
        "sample.c",
        "sample.rs",
        "sample.md",
    ];
    let expected: Vec<Outline> = names.iter().map(|n| outline_fixture(n)).collect();
    let again: Vec<Outline> = names.iter().map(|n| outline_fixture(n)).collect();
    assert_eq!(expected, again);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for (name, want) in names.iter().zip(&expected) {
                    assert_eq!(&outline_fixture(name), want, "{name}");
                }
            });
        }
    });
}

#[test]
fn outline_serialises_for_tool_results() {
    let outline = outline("x.py", "def f():\n    pass\n");
    let json = serde_json::to_value(&outline).unwrap();
    assert_eq!(json["language"], "python");
    assert_eq!(json["items"][0]["name"], "f");
    assert_eq!(json["items"][0]["start_line"], 1);
    assert_eq!(json["items"][0]["end_line"], 2);
}

fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [fixture_path(""), fixture_path("skim")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Parsing around function bodies must not change any outline.
#[test]
fn skimmed_outlines_match_full_parses() {
    use skald_codeintel::internals::without_skim;
    for path in fixture_files() {
        let source = std::fs::read_to_string(&path).unwrap();
        let skimmed = outline_source(&path, &source).unwrap();
        let full = without_skim(|| outline_source(&path, &source)).unwrap();
        assert_eq!(skimmed, full, "{}", path.display());
    }
}

/// The body-skipping Rust parser agrees with whole-file `syn`, on the
/// fixture and on this crate's own sources.
#[test]
fn rust_skim_matches_full_syn() {
    use skald_codeintel::internals::{rust_full, rust_skim};
    let mut sources = vec![fixture_path("sample.rs"), fixture_path("skim/tricky.rs")];
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push(path);
            }
        }
    }
    assert!(sources.len() > 10);
    for path in sources {
        let source = std::fs::read_to_string(&path).unwrap();
        let skim = rust_skim(&source).expect("skim parses");
        assert_eq!(Some(skim), rust_full(&source), "{}", path.display());
    }
}

/// Braces in regexes, strings, comments, templates, macros and raw
/// strings, and Python bodies with odd indentation, are skimmed correctly.
macro_rules! skim_snapshot {
    ($test:ident, $file:literal) => {
        #[test]
        fn $test() {
            let outline = outline_fixture(concat!("skim/", $file));
            insta::assert_snapshot!(stringify!($test), outline.render());
        }
    };
}

skim_snapshot!(skim_tricky_js, "tricky.js");
skim_snapshot!(skim_tricky_py, "tricky.py");
skim_snapshot!(skim_tricky_cpp, "tricky.cpp");
skim_snapshot!(skim_tricky_ts, "tricky.ts");
skim_snapshot!(skim_tricky_kt, "tricky.kt");
skim_snapshot!(skim_tricky_json, "tricky.json");
skim_snapshot!(skim_tricky_rs, "tricky.rs");
