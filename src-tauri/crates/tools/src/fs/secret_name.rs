//! Which directory names count as `secrets`. A name is judged by what some
//! filesystem could make of it, not by what ext4 does: case-insensitive ones
//! (APFS, NTFS, vfat) alias `Secrets`, normalising ones alias fullwidth and
//! compatibility forms (`ｓｅｃｒｅｔｓ`, `ſecrets`), HFS+ ignores zero-width
//! characters, and Windows drops trailing dots and spaces and reads
//! `secrets:stream` as the directory itself. Every one of those is refused on
//! every platform, so a tree copied to another machine keeps its meaning.

use std::ffi::OsStr;

use unicode_normalization::UnicodeNormalization;

/// The name of the directory no tool may look into.
pub(crate) const SECRETS: &str = "secrets";

/// Whether a directory entry's name is `secrets` on some filesystem.
/// `secretsX`, `secrets.txt` and `my-secrets` are not.
pub fn is_secrets_name(name: &OsStr) -> bool {
    let lossy = name.to_string_lossy();
    // The cheap common case: no letter of "secrets" at all.
    if lossy.is_ascii() && lossy.len() < SECRETS.len() {
        return false;
    }
    folded(&lossy) == SECRETS
}

/// `name` the way the most aggressive filesystem would compare it.
fn folded(name: &str) -> String {
    // An NTFS alternate data stream names the file before the colon.
    let name = name.split(':').next().unwrap_or(name);
    let mut out: String = name
        .nfkc()
        .filter(|c| !is_ignorable(*c))
        .flat_map(char::to_lowercase)
        .collect();
    // NFKC again: lower-casing can produce composable sequences.
    out = out.nfkc().collect();
    let trimmed = out.trim_end_matches(['.', ' ']).len();
    out.truncate(trimmed);
    out
}

/// Characters HFS+ and normalising tools drop from names: zero-width
/// spaces and joiners, the BOM, soft hyphen, variation selectors, and the
/// combining grapheme joiner.
fn is_ignorable(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_of_secrets_is_a_secrets_name() {
        for name in [
            "secrets",
            "Secrets",
            "SECRETS",
            "ｓｅｃｒｅｔｓ",
            "ＳＥＣＲＥＴＳ",
            "ſecrets",
            "sec\u{200B}rets",
            "secrets\u{FEFF}",
            "s\u{00AD}ecrets",
            "secrets.",
            "secrets ",
            "secrets. .",
            "secrets:stream",
            "secrets::$DATA",
            "SECRE\u{0054}S",
        ] {
            assert!(is_secrets_name(OsStr::new(name)), "{name:?}");
        }
    }

    #[test]
    fn near_misses_are_ordinary_names() {
        for name in [
            "secretsX",
            "secrets.txt",
            "my-secrets",
            "secret",
            "secrets2",
            "sécrets",
            ".secrets",
            "",
            "s",
        ] {
            assert!(!is_secrets_name(OsStr::new(name)), "{name:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_names_are_judged_without_panicking() {
        use std::os::unix::ffi::OsStrExt;
        assert!(!is_secrets_name(OsStr::from_bytes(b"secr\xffets")));
        assert!(!is_secrets_name(OsStr::from_bytes(b"\xff\xfe")));
    }
}
