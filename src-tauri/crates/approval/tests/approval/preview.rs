//! Write previews never copy a secret into the DB or the approval card.

use serde_json::json;
use skald_approval::predict_write;

#[test]
fn a_preview_never_reads_a_secret_even_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key.txt"), "TOPSECRET\n").unwrap();
    std::fs::create_dir_all(root.join("g")).unwrap();
    std::os::unix::fs::symlink("../secrets/key.txt", root.join("g/keylink")).unwrap();

    for path in [
        root.join("g/keylink"),
        root.join("g/../secrets/key.txt"),
        root.join("secrets/key.txt"),
    ] {
        let args = json!({"path": path, "old_string": "TOPSECRET", "new_string": "x"});
        let preview = predict_write("edit_file", &args).unwrap();
        assert_eq!(preview.old, None, "{}", path.display());
        assert_eq!(preview.new, None, "{}", path.display());
    }

    // An ordinary file still gets its diff.
    std::fs::write(root.join("g/plain.txt"), "a\nb\n").unwrap();
    let args = json!({"path": root.join("g/plain.txt"), "old_string": "b", "new_string": "c"});
    let preview = predict_write("edit_file", &args).unwrap();
    assert_eq!(preview.old.as_deref(), Some("a\nb\n"));
    assert_eq!(preview.new.as_deref(), Some("a\nc\n"));
}
