//! The status line's account of a command's processes: how many a kill
//! ended and which survived, or which a finished command left running. It
//! states only what was observed; where the platform gives no process table
//! it says what cannot be known instead of claiming a kill.

use super::tree::{KillReport, Survivor, Tracking};

/// How many survivors are named before "and N more".
const NAMED: usize = 5;

/// `killed 3 processes`, `killed 2 processes; 1 survived: pid 9 `x``, …
pub(crate) fn kill_text(report: &KillReport, noun: &str) -> String {
    if report.tracking == Tracking::GroupOnly {
        return "process group killed (processes that left the group, e.g. with setsid, \
                cannot be tracked on this platform and may still be running)"
            .to_string();
    }
    let mut text = match report.killed {
        0 => "no process was left to kill".to_string(),
        n => format!("killed {}", count(n, noun)),
    };
    if !report.survivors.is_empty() {
        text.push_str(&format!(
            "; {} survived: {}",
            report.survivors.len(),
            names(&report.survivors)
        ));
    }
    text
}

/// After a normal exit: `left running in the background: pid 9 `x``; empty
/// when nothing is.
pub(crate) fn left_running_text(left: &[Survivor]) -> String {
    match left.len() {
        0 => String::new(),
        1 => format!("left running in the background: {}", names(left)),
        n => format!(
            "{n} processes left running in the background: {}",
            names(left)
        ),
    }
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}es")
    }
}

fn names(list: &[Survivor]) -> String {
    let mut shown: Vec<String> = list
        .iter()
        .take(NAMED)
        .map(|s| format!("pid {} `{}`", s.pid, s.command))
        .collect();
    if list.len() > NAMED {
        shown.push(format!("and {} more", list.len() - NAMED));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn survivor(pid: i32, command: &str) -> Survivor {
        Survivor {
            pid,
            command: command.to_string(),
        }
    }

    fn report(killed: usize, survivors: Vec<Survivor>) -> KillReport {
        KillReport {
            tracking: Tracking::Cgroup,
            killed,
            survivors,
        }
    }

    #[test]
    fn kills_are_counted() {
        assert_eq!(kill_text(&report(1, vec![]), "process"), "killed 1 process");
        assert_eq!(
            kill_text(&report(3, vec![]), "process"),
            "killed 3 processes"
        );
        assert_eq!(
            kill_text(&report(2, vec![]), "background process"),
            "killed 2 background processes"
        );
        assert_eq!(
            kill_text(&report(0, vec![]), "process"),
            "no process was left to kill"
        );
    }

    #[test]
    fn survivors_are_named() {
        let r = report(3, vec![survivor(1234, "sleep 3001")]);
        assert_eq!(
            kill_text(&r, "process"),
            "killed 3 processes; 1 survived: pid 1234 `sleep 3001`"
        );
        let many: Vec<Survivor> = (1..=7).map(|i| survivor(i, "x")).collect();
        let t = kill_text(&report(0, many), "process");
        assert_eq!(
            t,
            "no process was left to kill; 7 survived: pid 1 `x`, pid 2 `x`, pid 3 `x`, \
             pid 4 `x`, pid 5 `x`, and 2 more"
        );
    }

    #[test]
    fn without_a_process_table_nothing_is_claimed_beyond_the_group() {
        let r = KillReport {
            tracking: Tracking::GroupOnly,
            killed: 0,
            survivors: vec![],
        };
        let t = kill_text(&r, "process");
        assert!(t.starts_with("process group killed"), "{t}");
        assert!(t.contains("may still be running"), "{t}");
    }

    #[test]
    fn left_running_names_each_process() {
        assert_eq!(left_running_text(&[]), "");
        assert_eq!(
            left_running_text(&[survivor(5, "sleep 100")]),
            "left running in the background: pid 5 `sleep 100`"
        );
        assert_eq!(
            left_running_text(&[survivor(5, "a"), survivor(6, "b")]),
            "2 processes left running in the background: pid 5 `a`, pid 6 `b`"
        );
    }
}
