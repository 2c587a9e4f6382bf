//! Which local process sent a request (Linux): the client socket's inode
//! from `/proc/net/tcp`, then the process holding it. The E2E restart test
//! tells the old app instance's requests from the new one's with it.

use std::fs;

/// The pid of the local process whose TCP socket has local port `port`.
pub fn pid_of_local_port(port: u16) -> Option<u32> {
    let inode = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|f| fs::read_to_string(f).ok())
        .find_map(|table| inode_of(&table, port))?;
    let target = format!("socket:[{inode}]");
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == target.as_str()) {
                return Some(pid);
            }
        }
    }
    None
}

/// The inode of the row whose local address ends in `:PORT` (hex).
fn inode_of(table: &str, port: u16) -> Option<String> {
    let suffix = format!(":{port:04X}");
    table.lines().skip(1).find_map(|row| {
        let fields: Vec<&str> = row.split_whitespace().collect();
        (fields.get(1)?.ends_with(&suffix)).then(|| fields.get(9).map(|s| (*s).to_owned()))?
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn finds_the_row_by_local_port() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 4242 1\n   1: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 4343 1\n";
        assert_eq!(inode_of(table, 0xD431).as_deref(), Some("4343"));
        assert_eq!(inode_of(table, 0x1F90).as_deref(), Some("4242"));
        assert_eq!(inode_of(table, 1), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_socket_of_this_process_is_ours() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let port = client.local_addr().unwrap().port();
        assert_eq!(pid_of_local_port(port), Some(std::process::id()));
    }
}
