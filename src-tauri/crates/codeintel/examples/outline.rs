//! Prints the outline of each file given:
//! `cargo run -p skald-codeintel --example outline -- FILE...`.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for path in std::env::args().skip(1) {
        let path = Path::new(&path);
        let source = std::fs::read_to_string(path)?;
        let outline = skald_codeintel::outline_source(path, &source)?;
        println!("== {} ({})", path.display(), outline.language);
        println!("{}", outline.render());
    }
    Ok(())
}
