//! Prints the tree-sitter syntax tree of a file, one named node per line, for
//! writing classifiers: `cargo run -p skald-codeintel --example syntax-tree -- FILE`.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        return Err("usage: syntax-tree FILE".into());
    };
    let path = Path::new(&path);
    let lang = skald_codeintel::language_for(path).ok_or("no grammar for this extension")?;
    let source = std::fs::read_to_string(path)?;
    print!("{}", skald_codeintel::syntax_tree(lang, &source)?);
    Ok(())
}
