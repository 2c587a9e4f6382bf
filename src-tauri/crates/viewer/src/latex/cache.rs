//! The compile cache: after a good compile, `manifest.json` in the build
//! directory records a SHA-256 of every project input and the size and
//! mtime of every TeX-distribution input. A later open that finds them all
//! unchanged (and the kept PDF present) runs no TeX.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::fls::Inputs;

/// Bumped when what a compile produces changes (flags, engine choice), so
/// old manifests miss.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Manifest {
    version: u32,
    source: PathBuf,
    project: Vec<(PathBuf, String)>,
    system: Vec<(PathBuf, u64, u128)>,
}

/// A build directory's name: a hash of the source's canonical path.
pub fn path_key(source: &Path) -> String {
    let digest = Sha256::digest(source.as_os_str().as_encoded_bytes());
    digest[..10].iter().map(|b| format!("{b:02x}")).collect()
}

fn hash_file(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).ok()?;
    Some(format!("{:x}", hasher.finalize()))
}

fn stamp(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), mtime.as_nanos()))
}

/// The project inputs when the cache is valid for `source`.
pub fn hit(build: &Path, source: &Path, pdf: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read(build.join("manifest.json")).ok()?;
    let m: Manifest = serde_json::from_slice(&text).ok()?;
    if m.version != VERSION || m.source != source || !pdf.is_file() {
        return None;
    }
    let system_same = m
        .system
        .iter()
        .all(|(p, len, mtime)| stamp(p) == Some((*len, *mtime)));
    if !system_same {
        return None;
    }
    let project_same = m
        .project
        .iter()
        .all(|(p, hash)| hash_file(p).as_deref() == Some(hash.as_str()));
    project_same.then(|| m.project.into_iter().map(|(p, _)| p).collect())
}

/// Records the inputs of a good compile. No manifest (so the next open
/// compiles) when an input vanished or was modified after `started`: the
/// PDF may hold its older content, and a hash taken now would vouch for it.
pub fn store(
    build: &Path,
    source: &Path,
    inputs: &Inputs,
    started: SystemTime,
) -> std::io::Result<()> {
    let project = inputs
        .project
        .iter()
        .map(|p| {
            let modified = std::fs::metadata(p).and_then(|m| m.modified()).ok()?;
            if modified >= started {
                return None;
            }
            hash_file(p).map(|h| (p.clone(), h))
        })
        .collect::<Option<Vec<_>>>();
    let Some(project) = project else {
        let _ = std::fs::remove_file(build.join("manifest.json"));
        return Ok(());
    };
    let system = inputs
        .system
        .iter()
        .filter_map(|p| stamp(p).map(|(l, m)| (p.clone(), l, m)))
        .collect();
    let m = Manifest {
        version: VERSION,
        source: source.to_path_buf(),
        project,
        system,
    };
    let tmp = build.join("manifest.json.tmp");
    std::fs::write(&tmp, serde_json::to_vec(&m).map_err(std::io::Error::other)?)?;
    std::fs::rename(tmp, build.join("manifest.json"))
}
