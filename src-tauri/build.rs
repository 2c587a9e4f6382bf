// The app package's manifest is the repository root (see docs/architecture.md),
// so tauri-build's default `./capabilities` would find nothing and the window
// would run with no capability at all; point it at ours.
fn main() {
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    let attributes =
        tauri_build::Attributes::new().capabilities_path_pattern("./src-tauri/capabilities/**/*");
    if let Err(e) = tauri_build::try_build(attributes) {
        eprintln!("tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}
