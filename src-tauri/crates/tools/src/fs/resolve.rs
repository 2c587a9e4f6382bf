//! The one path resolver every file tool and the approval gate use: the
//! file the policy judged is the file the tool opens.
//!
//! A path is walked from a directory handle one component at a time. Every
//! step opens the next component relative to the handle of the directory
//! before it, without following symlinks (`O_PATH | O_NOFOLLOW`); a symlink
//! is read through its own handle and its target walked by the same code,
//! each hop judged. `..` steps back to the handle it came from, so no text
//! is ever handed to the kernel to resolve on its own, and swapping a
//! directory for a symlink after it was judged changes nothing: the handle
//! already held is the directory that was judged. A name that is `secrets`
//! on some filesystem (see [`is_secrets_name`]) ends the walk, whether it
//! was written or reached through a link.
//!
//! rustix over cap-std: cap-std's `Dir` resolves beneath one root and
//! refuses absolute symlinks and `..` above it, while Skald's tools may read
//! anywhere the gate allows and must judge every hop of a link themselves;
//! rustix gives exactly the `*at` calls that needs, safely, with no `unsafe`
//! of ours. Linux (`O_PATH`, `openat2`) is the platform it is written for.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{self as rfs, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::secret_name::is_secrets_name;

/// The kernel's own limit on symlinks followed in one lookup.
pub const MAX_SYMLINK_HOPS: usize = 40;
/// The longest path accepted, as written (the kernel's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// What the walk is for: what happens at a missing component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// The whole path must exist.
    Read,
    /// Missing directories are created; the last component may be missing.
    Write,
    /// No side effects: a missing directory is imagined empty, so the walk
    /// goes on exactly as a [`Intent::Write`] would after creating it.
    Lookup,
}

/// Why a path cannot be used. Each names the place as resolved so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// The path leads into (or through) a `secrets` directory.
    Secret(PathBuf),
    NotFound(PathBuf),
    /// A component used as a directory is something else.
    NotADirectory(PathBuf),
    /// More than [`MAX_SYMLINK_HOPS`] symlinks.
    TooManyLinks(PathBuf),
    /// The path as written is over [`MAX_PATH_BYTES`].
    PathTooLong,
    /// One component is longer than the filesystem allows (255 bytes).
    NameTooLong(PathBuf),
    /// A directory on the way cannot be searched (or created).
    PermissionDenied(PathBuf),
    /// A NUL byte in the path or a symlink target.
    Nul,
    /// Something else the OS said.
    Os(PathBuf, String),
}

impl ResolveError {
    /// Where the walk stopped.
    pub fn at(&self) -> Option<&Path> {
        match self {
            Self::Secret(p)
            | Self::NotFound(p)
            | Self::NotADirectory(p)
            | Self::TooManyLinks(p)
            | Self::NameTooLong(p)
            | Self::PermissionDenied(p)
            | Self::Os(p, _) => Some(p),
            Self::PathTooLong | Self::Nul => None,
        }
    }

    fn from_errno(e: Errno, at: PathBuf) -> Self {
        match e {
            Errno::NOENT => Self::NotFound(at),
            Errno::NOTDIR => Self::NotADirectory(at),
            Errno::LOOP => Self::TooManyLinks(at),
            Errno::NAMETOOLONG => Self::NameTooLong(at),
            Errno::ACCESS | Errno::PERM => Self::PermissionDenied(at),
            other => Self::Os(at, std::io::Error::from(other).to_string()),
        }
    }
}

/// What is at the end of a resolved path.
#[derive(Debug)]
pub enum Node {
    /// Nothing yet (only for [`Intent::Write`] and [`Intent::Lookup`]).
    Missing,
    /// An existing object: its `O_PATH` handle and kind, taken without
    /// opening it (so a FIFO or device is never opened by the walk).
    Existing { handle: OwnedFd, kind: FileType },
}

/// A resolved path: its canonical form (what the policy judged) and the
/// handles to use it by.
#[derive(Debug)]
pub struct Resolved {
    canonical: PathBuf,
    /// The directory holding the last component (`/` for `/` itself).
    parent: Option<OwnedFd>,
    /// The last component's name (`None` for `/`).
    name: Option<OsString>,
    node: Node,
}

impl Resolved {
    /// Absolute, no `.`/`..`, no symlinks: where the path really lands.
    pub fn canonical(&self) -> &Path {
        &self.canonical
    }

    pub fn node(&self) -> &Node {
        &self.node
    }

    /// The kind of what is there, if anything.
    pub fn kind(&self) -> Option<FileType> {
        match &self.node {
            Node::Missing => None,
            Node::Existing { kind, .. } => Some(*kind),
        }
    }

    /// The directory that holds the last component, and its name; `None`
    /// for the root directory itself (or an imagined one).
    pub fn parent_and_name(&self) -> Option<(&OwnedFd, &OsStr)> {
        Some((self.parent.as_ref()?, self.name.as_deref()?))
    }

    /// Opens the resolved object for reading: the same inode the walk found
    /// (an entry swapped since is refused, not followed), non-blocking, and
    /// only when it is a regular file or a directory, so a FIFO or device is
    /// never opened at all.
    pub fn open_read(&self) -> Result<File, OpenError> {
        let Node::Existing { handle, kind } = &self.node else {
            return Err(OpenError::Missing);
        };
        let flags = match *kind {
            FileType::RegularFile => OFlags::RDONLY,
            FileType::Directory => OFlags::RDONLY | OFlags::DIRECTORY,
            other => return Err(OpenError::NotRegular(other)),
        };
        let fd = match self.parent_and_name() {
            Some((dir, name)) => reopen(dir, name, flags, handle)?,
            // The root: nothing can be swapped for it.
            None => rfs::openat(rfs::CWD, "/", flags | OFlags::CLOEXEC, Mode::empty())
                .map_err(OpenError::Os)?,
        };
        Ok(File::from(fd))
    }
}

/// Why opening a resolved path failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    Missing,
    /// A FIFO, socket, device or symlink.
    NotRegular(FileType),
    /// The entry was replaced between the walk and the open.
    Changed,
    Os(Errno),
}

/// Opens `name` in `dir` with `flags` and checks it is the inode `expected`
/// refers to. Non-blocking while opening, so a FIFO slipped in cannot hang.
fn reopen(
    dir: &OwnedFd,
    name: &OsStr,
    flags: OFlags,
    expected: &OwnedFd,
) -> Result<OwnedFd, OpenError> {
    let fd = rfs::openat(
        dir,
        name,
        flags | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| match e {
        Errno::LOOP | Errno::NOENT | Errno::NXIO => OpenError::Changed,
        other => OpenError::Os(other),
    })?;
    let (got, want) = (
        rfs::fstat(&fd).map_err(OpenError::Os)?,
        rfs::fstat(expected).map_err(OpenError::Os)?,
    );
    if (got.st_dev, got.st_ino) != (want.st_dev, want.st_ino) {
        return Err(OpenError::Changed);
    }
    // Regular files read normally from here on.
    rfs::fcntl_setfl(&fd, flags & !OFlags::NONBLOCK).map_err(OpenError::Os)?;
    Ok(fd)
}

/// One directory of the walk: its name and handle (`None` when imagined by
/// a [`Intent::Lookup`] walk).
struct Level {
    name: OsString,
    handle: Option<OwnedFd>,
}

/// Resolves `path` (relative ones against `base`) for `intent`.
pub fn resolve(path: &Path, base: &Path, intent: Intent) -> Result<Resolved, ResolveError> {
    if path.as_os_str().len() > MAX_PATH_BYTES {
        return Err(ResolveError::PathTooLong);
    }
    if path.as_os_str().as_bytes().contains(&0) {
        return Err(ResolveError::Nul);
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    // `file/` must be a directory, as for open(2).
    let wants_dir = path.as_os_str().as_bytes().ends_with(b"/");
    match Walk::new(intent)?.run(&abs, wants_dir) {
        // A walk that failed before it reached a secrets name written in the
        // path is still a refusal for secrets, so `missing/../secrets/k`
        // reveals nothing (not even that `missing` is missing). A walk that
        // got through met every written name, so there is none.
        Err(e) if !matches!(e, ResolveError::Secret(_)) && written_secret(&abs) => {
            Err(ResolveError::Secret(lexical(&abs)))
        }
        other => other,
    }
}

fn written_secret(abs: &Path) -> bool {
    abs.components()
        .any(|c| matches!(c, Component::Normal(n) if is_secrets_name(n)))
}

struct Walk {
    intent: Intent,
    root: OwnedFd,
    stack: Vec<Level>,
    hops: usize,
}

impl Walk {
    fn new(intent: Intent) -> Result<Self, ResolveError> {
        let root = open_path(rfs::CWD, OsStr::new("/"))
            .map_err(|e| ResolveError::from_errno(e, PathBuf::from("/")))?;
        Ok(Self {
            intent,
            root,
            stack: Vec::new(),
            hops: 0,
        })
    }

    fn canonical(&self) -> PathBuf {
        let mut p = PathBuf::from("/");
        for level in &self.stack {
            p.push(&level.name);
        }
        p
    }

    fn here(&self, name: &OsStr) -> PathBuf {
        self.canonical().join(name)
    }

    /// The handle of the current directory; `None` when it is imagined.
    fn current(&self) -> Option<&OwnedFd> {
        match self.stack.last() {
            Some(level) => level.handle.as_ref(),
            None => Some(&self.root),
        }
    }

    fn run(mut self, abs: &Path, wants_dir: bool) -> Result<Resolved, ResolveError> {
        // Components still to walk, reversed: a symlink's target is pushed
        // in front of what was left.
        let mut todo: Vec<OsString> = Vec::new();
        push_components(&mut todo, abs);
        let mut last: Option<Node> = None;
        while let Some(comp) = todo.pop() {
            last = None;
            match comp.as_bytes() {
                b"/" => self.stack.clear(),
                b"." => {}
                b".." => {
                    self.stack.pop();
                }
                _ => {
                    let is_last = todo.is_empty();
                    if let Some(node) = self.step(comp, is_last, &mut todo)? {
                        last = Some(node);
                    }
                }
            }
        }
        let node = match last {
            Some(node) => node,
            // Ended on a directory (`/`, `..`, `.` or a directory pushed as
            // a level): describe it by its handle.
            None => match self.stack.last() {
                None => Node::Existing {
                    handle: open_path(&self.root, OsStr::new("."))
                        .map_err(|e| ResolveError::from_errno(e, PathBuf::from("/")))?,
                    kind: FileType::Directory,
                },
                Some(Level { handle: None, .. }) => Node::Missing,
                Some(Level {
                    handle: Some(h), ..
                }) => Node::Existing {
                    handle: h
                        .try_clone()
                        .map_err(|e| ResolveError::Os(self.canonical(), e.to_string()))?,
                    kind: FileType::Directory,
                },
            },
        };
        if wants_dir
            && !matches!(node, Node::Missing)
            && !matches!(
                node,
                Node::Existing {
                    kind: FileType::Directory,
                    ..
                }
            )
        {
            return Err(ResolveError::NotADirectory(self.canonical()));
        }
        let canonical = self.canonical();
        let name = self.stack.last().map(|l| l.name.clone());
        // The last level is the object itself; its parent is the one below.
        self.stack.pop();
        let parent = match self.stack.last() {
            Some(level) => level.handle.as_ref().map(OwnedFd::try_clone).transpose(),
            None => self.root.try_clone().map(Some),
        }
        .map_err(|e| ResolveError::Os(canonical.clone(), e.to_string()))?;
        let parent = if name.is_some() { parent } else { None };
        Ok(Resolved {
            canonical,
            parent,
            name,
            node,
        })
    }

    /// Walks one named component. Returns the node when it is the last one
    /// and not a directory (a directory becomes a level instead).
    fn step(
        &mut self,
        name: OsString,
        is_last: bool,
        todo: &mut Vec<OsString>,
    ) -> Result<Option<Node>, ResolveError> {
        if is_secrets_name(&name) {
            // The whole path as it would land, for rules that match below
            // `secrets/` (`secrets/*`).
            let mut at = self.here(&name);
            for rest in todo.iter().rev() {
                at.push(rest);
            }
            return Err(ResolveError::Secret(lexical(&at)));
        }
        let Some(dir) = self.current() else {
            // Inside an imagined directory everything is imagined.
            self.stack.push(Level { name, handle: None });
            return Ok(None);
        };
        let handle = match open_path(dir, &name) {
            Ok(h) => h,
            Err(Errno::NOENT) => return self.missing(name, is_last),
            Err(e) => return Err(ResolveError::from_errno(e, self.here(&name))),
        };
        let kind = FileType::from_raw_mode(
            rfs::fstat(&handle)
                .map_err(|e| ResolveError::from_errno(e, self.here(&name)))?
                .st_mode,
        );
        match kind {
            FileType::Symlink => {
                self.hops += 1;
                if self.hops > MAX_SYMLINK_HOPS {
                    return Err(ResolveError::TooManyLinks(self.here(&name)));
                }
                let target = rfs::readlinkat(&handle, "", Vec::new())
                    .map_err(|e| ResolveError::from_errno(e, self.here(&name)))?;
                let target = PathBuf::from(OsStr::from_bytes(target.as_bytes()));
                if target.as_os_str().is_empty() {
                    return Err(ResolveError::NotFound(self.here(&name)));
                }
                push_components(todo, &target);
                Ok(None)
            }
            FileType::Directory => {
                self.stack.push(Level {
                    name,
                    handle: Some(handle),
                });
                Ok(None)
            }
            _ if is_last => {
                self.stack.push(Level { name, handle: None });
                Ok(Some(Node::Existing { handle, kind }))
            }
            _ => Err(ResolveError::NotADirectory(self.here(&name))),
        }
    }

    /// A component that does not exist.
    fn missing(&mut self, name: OsString, is_last: bool) -> Result<Option<Node>, ResolveError> {
        match self.intent {
            Intent::Read => Err(ResolveError::NotFound(self.here(&name))),
            _ if is_last => {
                self.stack.push(Level { name, handle: None });
                Ok(Some(Node::Missing))
            }
            Intent::Lookup => {
                self.stack.push(Level { name, handle: None });
                Ok(None)
            }
            Intent::Write => {
                let here = self.here(&name);
                let Some(dir) = self.current() else {
                    return Err(ResolveError::NotFound(here));
                };
                match rfs::mkdirat(dir, &name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(ResolveError::from_errno(e, here)),
                }
                // Open what is there now through the ordinary step: if
                // something else took the name meanwhile, it is judged too.
                match open_path(dir, &name) {
                    Ok(handle) => {
                        let st = rfs::fstat(&handle)
                            .map_err(|e| ResolveError::from_errno(e, here.clone()))?;
                        if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
                            return Err(ResolveError::NotADirectory(here));
                        }
                        self.stack.push(Level {
                            name,
                            handle: Some(handle),
                        });
                        Ok(None)
                    }
                    Err(e) => Err(ResolveError::from_errno(e, here)),
                }
            }
        }
    }
}

/// An `O_PATH` handle of `name` in `dir`, not following a symlink: opening
/// it has no side effects whatever the object is.
fn open_path<Fd: AsFd>(dir: Fd, name: &OsStr) -> Result<OwnedFd, Errno> {
    rfs::openat(
        dir,
        name,
        OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// `p` with `.` dropped and `..` folded as text: only for naming where a
/// refused path points, never for opening.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
        }
    }
    out
}

/// Pushes `p`'s components onto the reversed to-do stack.
fn push_components(todo: &mut Vec<OsString>, p: &Path) {
    let mut comps: Vec<OsString> = p
        .components()
        .map(|c| match c {
            Component::RootDir | Component::Prefix(_) => OsString::from("/"),
            Component::CurDir => OsString::from("."),
            Component::ParentDir => OsString::from(".."),
            Component::Normal(n) => n.to_os_string(),
        })
        .collect();
    comps.reverse();
    todo.append(&mut comps);
}

/// Opens `rel` (plain names only, as a directory walk yields them) beneath
/// `root` for reading, refusing any symlink on the way and anything that is
/// not a regular file, without ever blocking on a FIFO. One `openat2` call
/// where the kernel has it; the component walk otherwise.
pub fn open_file_beneath(root: &OwnedFd, rel: &Path) -> Result<File, OpenError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
    let fd = match rfs::openat2(
        root,
        rel,
        flags | OFlags::CLOEXEC,
        Mode::empty(),
        rfs::ResolveFlags::BENEATH
            | rfs::ResolveFlags::NO_SYMLINKS
            | rfs::ResolveFlags::NO_MAGICLINKS,
    ) {
        Ok(fd) => fd,
        Err(Errno::NOSYS) => open_beneath_by_steps(root, rel, flags)?,
        Err(e) => return Err(OpenError::Os(e)),
    };
    let st = rfs::fstat(&fd).map_err(OpenError::Os)?;
    let kind = FileType::from_raw_mode(st.st_mode);
    if kind != FileType::RegularFile {
        return Err(OpenError::NotRegular(kind));
    }
    rfs::fcntl_setfl(&fd, OFlags::RDONLY).map_err(OpenError::Os)?;
    Ok(File::from(fd))
}

fn open_beneath_by_steps(root: &OwnedFd, rel: &Path, flags: OFlags) -> Result<OwnedFd, OpenError> {
    let names: Vec<&OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(n) => Ok(n),
            _ => Err(OpenError::Os(Errno::XDEV)),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, dirs)) = names.split_last() else {
        return Err(OpenError::Missing);
    };
    let mut dir = root.try_clone().map_err(|_| OpenError::Os(Errno::BADF))?;
    for name in dirs {
        dir = rfs::openat(
            &dir,
            *name,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(OpenError::Os)?;
    }
    rfs::openat(&dir, *last, flags | OFlags::CLOEXEC, Mode::empty()).map_err(OpenError::Os)
}
