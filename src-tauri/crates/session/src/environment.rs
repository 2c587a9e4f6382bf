//! What every agent is told about where it runs: the working directory,
//! the operating system and today's date. Added after the agent's own
//! prompt (before the person's standing instructions), so relative paths,
//! shell dialects and "today" mean the right thing without a tool call.

use std::path::Path;
use std::sync::OnceLock;

use chrono::NaiveDate;

/// The environment block for a prompt, for `workdir` on `today`.
pub fn environment_block(workdir: &Path, today: NaiveDate) -> String {
    format!(
        "<environment>\nWorking directory: {}\nOperating system: {}\nToday's date: {} ({})\n</environment>",
        workdir.display(),
        operating_system(),
        today.format("%Y-%m-%d"),
        today.format("%A"),
    )
}

/// `system` with the environment block appended (today in local time).
pub(crate) fn with_environment(system: String, workdir: &Path) -> String {
    let block = environment_block(workdir, chrono::Local::now().date_naive());
    if system.trim().is_empty() {
        block
    } else {
        format!("{system}\n\n{block}")
    }
}

/// `linux (Debian GNU/Linux 13 (trixie), x86_64)`: the family tools care
/// about, the distribution where it says which, and the architecture.
fn operating_system() -> &'static str {
    static OS: OnceLock<String> = OnceLock::new();
    OS.get_or_init(|| {
        let pretty = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|text| pretty_name(&text));
        let arch = std::env::consts::ARCH;
        match pretty {
            Some(name) => format!("{} ({name}, {arch})", std::env::consts::OS),
            None => format!("{} ({arch})", std::env::consts::OS),
        }
    })
}

/// `PRETTY_NAME` of an os-release file, unquoted.
fn pretty_name(os_release: &str) -> Option<String> {
    os_release.lines().find_map(|line| {
        let value = line.strip_prefix("PRETTY_NAME=")?.trim();
        let value = value.trim_matches('"').trim_matches('\'').trim();
        (!value.is_empty()).then(|| value.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_names_directory_system_and_date() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 3).unwrap();
        let b = environment_block(Path::new("/home/me/project"), day);
        assert!(b.contains("Working directory: /home/me/project\n"), "{b}");
        assert!(
            b.contains(&format!("Operating system: {}", std::env::consts::OS)),
            "{b}"
        );
        assert!(b.contains("Today's date: 2026-12-03 (Thursday)"), "{b}");
    }

    #[test]
    fn pretty_name_is_unquoted_and_optional() {
        assert_eq!(
            pretty_name("NAME=Debian\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n").as_deref(),
            Some("Debian GNU/Linux 13 (trixie)")
        );
        assert_eq!(pretty_name("NAME=x\nPRETTY_NAME=\"\"\n"), None);
        assert_eq!(pretty_name("NAME=x\n"), None);
    }
}
